import torch


def build_bias(rel_bias, batch):
    # rel_bias: (H, N, N) -> (B, H, N, N) via expand
    return rel_bias.unsqueeze(0).expand(batch, -1, -1, -1)


def windows_view(bias, n_win):
    b, h, n, m = bias.shape
    return bias.view(b, h, n_win, n // n_win, m)


def main():
    bias = build_bias(torch.randn(4, 6, 6), batch=3)
    assert windows_view(bias, 2).shape == (3, 4, 2, 3, 6)
