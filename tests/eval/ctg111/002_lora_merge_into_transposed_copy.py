"""LoRA merge written into a contiguous temporary of the transposed base weight."""
import torch
import torch.nn as nn


class LoRALinear(nn.Module):
    def __init__(self, d_in, d_out, r):
        super().__init__()
        self.base = nn.Linear(d_in, d_out)
        self.A = nn.Parameter(torch.randn(r, d_out) * 0.01)
        self.B = nn.Parameter(torch.randn(d_in, r) * 0.01)

    def weight_in_out(self):
        return self.base.weight.data.t()

    @torch.no_grad()
    def merge(self):
        self.weight_in_out().contiguous().add_(self.B @ self.A)  # hazard: CTG111


def main():
    m = LoRALinear(8, 6, 2)
    m.merge()


if __name__ == "__main__":
    main()
