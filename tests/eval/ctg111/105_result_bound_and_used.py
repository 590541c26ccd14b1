"""LoRA merge that computes a new weight from the contiguous copy and keeps the result."""
import torch
import torch.nn as nn


class LoRALinear(nn.Module):
    def __init__(self, d_in, d_out, r):
        super().__init__()
        self.base = nn.Linear(d_in, d_out)
        self.A = nn.Parameter(torch.randn(r, d_out) * 0.01)
        self.B = nn.Parameter(torch.randn(d_in, r) * 0.01)

    @torch.no_grad()
    def merged_in_out(self):
        merged = self.base.weight.data.t().contiguous().add_(self.B @ self.A)
        return merged


def main():
    assert LoRALinear(8, 6, 2).merged_in_out().shape == (8, 6)


if __name__ == "__main__":
    main()
