"""LoRA merge that stores the merged delta as a new weight."""
import torch
import torch.nn as nn


class LoRAMerged(nn.Module):
    def __init__(self, d_in, d_out, rank):
        super().__init__()
        self.lora_A = torch.randn(rank, d_out) * 0.01
        self.lora_B = torch.randn(d_in, rank) * 0.01

    def merge(self):
        self.weight = nn.Parameter((self.lora_B @ self.lora_A).t())  # hazard: CTG103

    def forward(self, x):
        return x @ self.weight.t()


def main():
    m = LoRAMerged(16, 8, 4)
    m.merge()
    assert m(torch.randn(2, 16)).shape == (2, 8)


if __name__ == "__main__":
    main()
