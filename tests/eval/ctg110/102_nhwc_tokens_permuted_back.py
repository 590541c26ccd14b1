"""ConvNeXt-style block: NHWC tokens permuted back to NCHW and made contiguous on purpose."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.norm = nn.LayerNorm(c)
        self.fc = nn.Linear(c, c)

    def forward(self, x):
        t = x.permute(0, 2, 3, 1)
        t = self.fc(self.norm(t))
        return x + t.permute(0, 3, 1, 2).contiguous()


def main():
    with torch.no_grad():
        assert Block(4)(torch.randn(2, 4, 6, 6)).shape == (2, 4, 6, 6)


if __name__ == "__main__":
    main()
