"""Porting a TensorFlow HWIO conv kernel into a PyTorch OIHW parameter."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def hwio_to_oihw(kernel):
    return torch.from_numpy(kernel).permute(3, 2, 0, 1)


class PortedConv(nn.Module):
    def __init__(self, tf_kernel):
        super().__init__()
        self.weight = nn.Parameter(hwio_to_oihw(tf_kernel))  # hazard: CTG103

    def forward(self, x):
        return F.conv2d(x, self.weight, padding=1)


def main():
    kernel = np.random.randn(3, 3, 4, 8).astype(np.float32)
    m = PortedConv(kernel)
    assert m(torch.randn(1, 4, 8, 8)).shape == (1, 8, 8, 8)


if __name__ == "__main__":
    main()
