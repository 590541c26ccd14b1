"""TF kernel port whose helper returns a row-major copy."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def hwio_to_oihw(kernel):
    return torch.from_numpy(kernel).permute(3, 2, 0, 1).contiguous()


class PortedConv(nn.Module):
    def __init__(self, tf_kernel):
        super().__init__()
        self.weight = nn.Parameter(hwio_to_oihw(tf_kernel))

    def forward(self, x):
        return F.conv2d(x, self.weight, padding=1)


def main():
    m = PortedConv(np.random.randn(3, 3, 4, 8).astype(np.float32))
    assert m.weight.is_contiguous()


if __name__ == "__main__":
    main()
