"""LoRA adapter keeps the input-side half of the merged delta for later inspection."""
import torch
import torch.nn as nn


class LoRALinear(nn.Module):
    def __init__(self, d_in, d_out, rank):
        super().__init__()
        self.base = nn.Linear(d_in, d_out)
        self.A = nn.Parameter(torch.randn(rank, d_in) * 0.01)
        self.B = nn.Parameter(torch.randn(d_out, rank) * 0.01)
        self.first_half = None

    def merged_delta(self):
        return (self.B @ self.A).detach()

    def snapshot(self):
        delta = self.merged_delta()
        self.first_half = delta.chunk(2, dim=1)[0]  # hazard: CTG102


def main():
    m = LoRALinear(16, 8, 2)
    m.snapshot()
    assert m.first_half.shape == (8, 8)


if __name__ == "__main__":
    main()
