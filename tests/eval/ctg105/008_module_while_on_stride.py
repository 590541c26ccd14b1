"""Padding loop that aligns the row stride for a vectorised kernel; the module is traced."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class AlignRows(nn.Module):
    def forward(self, x):
        while x.stride(0) % 4 != 0:  # hazard: CTG105
            x = F.pad(x, (0, 1))
        return x


def main():
    traced = torch.jit.trace(AlignRows(), torch.randn(3, 6))
    assert traced(torch.randn(3, 6)).shape == (3, 8)


if __name__ == "__main__":
    main()
