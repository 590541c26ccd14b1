import torch


def outer_energy(vecs):
    """vecs: (batch, n, 1) complex column vectors."""
    rows = vecs.mH
    b, _, n = rows.shape
    flat_rows = rows.view(b, n)
    energy = (flat_rows.abs() ** 2).sum(-1)
    outer = vecs @ rows
    return energy, outer


def main():
    v = torch.randn(5, 6, 1, dtype=torch.complex64)
    energy, outer = outer_energy(v)
    print(energy.shape, outer.shape)
