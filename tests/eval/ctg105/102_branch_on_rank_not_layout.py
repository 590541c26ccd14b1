"""Traced module that branches on the rank of its input (not on its layout)."""
import torch
import torch.nn as nn


class Pool(nn.Module):
    def forward(self, x):
        if x.dim() == 4:
            x = x.flatten(2)
        return x.mean(-1)


def main():
    traced = torch.jit.trace(Pool(), torch.randn(2, 3, 4, 4))
    assert traced(torch.randn(2, 3, 4, 4)).shape == (2, 3)


if __name__ == "__main__":
    main()
