import torch


class BeamCache:
    def __init__(self, k_bhtd):
        self.k = k_bhtd.transpose(1, 2)  # stored (B*beam, T, H, D)

    def reorder(self, beam_idx):
        self.k = self.k.index_select(0, beam_idx)

    def flat(self):
        n, t, h, d = self.k.shape
        return self.k.view(n, t, h * d)


def main():
    cache = BeamCache(torch.randn(4, 2, 3, 5))
    cache.reorder(torch.tensor([1, 1, 0, 3]))
    cache.flat()
