import torch


def float_bits(t: torch.Tensor) -> torch.Tensor:
    return t.view(torch.int32)


def bf16_bits(t: torch.Tensor) -> torch.Tensor:
    return t.to(torch.bfloat16).view(torch.int16)


def half_pairs(t: torch.Tensor) -> torch.Tensor:
    return t.view(torch.float16)


def main():
    w = torch.randn(4, 6)
    float_bits(w.t())
    bf16_bits(w.t())
    half_pairs(w[:, 1:])
