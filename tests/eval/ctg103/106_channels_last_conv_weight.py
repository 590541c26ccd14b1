"""Conv weight kept in channels_last on purpose (exempt: chosen layout for conv kernels)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class CLConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        w = torch.randn(cout, cin, 3, 3) * 0.1
        self.weight = nn.Parameter(w.contiguous(memory_format=torch.channels_last))

    def forward(self, x):
        return F.conv2d(x, self.weight, padding=1)


def main():
    m = CLConv(4, 8)
    assert m(torch.randn(1, 4, 8, 8)).shape == (1, 8, 8, 8)


if __name__ == "__main__":
    main()
