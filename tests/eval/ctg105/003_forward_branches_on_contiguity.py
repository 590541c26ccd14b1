"""Custom-kernel wrapper picks a fast path for contiguous input; the module is traced."""
import torch
import torch.nn as nn


class FusedNorm(nn.Module):
    def forward(self, x):
        if x.is_contiguous():  # hazard: CTG105
            y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        else:
            y = x.contiguous() * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        return y


def main():
    traced = torch.jit.trace(FusedNorm(), torch.randn(2, 8))
    assert traced(torch.randn(2, 8)).shape == (2, 8)


if __name__ == "__main__":
    main()
