import torch


def interleaved_halves(x):
    """Real/imag interleaved float32 signal; reinterpret the real lane."""
    real_lane = x[:, ::2]
    halves = real_lane.view(torch.int16)  # hazard: CTG101
    return halves.float().mean(-1)


def signal_signature(x):
    imag_lane = x[:, 1::2]
    return torch.stack([interleaved_halves(x), imag_lane.abs().mean(-1)], dim=-1)


def main():
    sig = torch.randn(4, 32)
    print(signal_signature(sig).shape)
