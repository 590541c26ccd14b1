import torch
from torch import nn


class TruncatedFlattener(nn.Module):
    def __init__(self, dim, max_len, out_dim):
        super().__init__()
        self.max_len = max_len
        self.fc = nn.Linear(max_len * dim, out_dim)

    def forward(self, hidden):
        b, t, d = hidden.shape
        kept = hidden.narrow(1, 0, self.max_len)
        flat = kept.view(b, -1)
        return self.fc(flat)


def main():
    model = TruncatedFlattener(16, max_len=8, out_dim=4)
    print(model(torch.randn(3, 12, 16)).shape)
