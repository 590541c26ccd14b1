"""Offloaded KV cache: keys are brought back to the compute device heads-first."""
import torch


class OffloadedCache:
    def __init__(self, device):
        self.device = device
        self.k = None

    def load(self, k_host):
        # host copy is (batch, seq, heads, dim)
        self.k = k_host.transpose(1, 2).to(self.device)  # hazard: CTG104


def main():
    cache = OffloadedCache("cuda" if torch.cuda.is_available() else "cpu")
    cache.load(torch.randn(2, 5, 4, 8))
    assert cache.k.shape == (2, 4, 5, 8)


if __name__ == "__main__":
    main()
