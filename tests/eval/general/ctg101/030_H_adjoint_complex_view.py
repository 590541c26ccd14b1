import torch


def normalize_columns(a):
    return a / torch.linalg.vector_norm(a, dim=0, keepdim=True)


def column_projector(basis):
    """basis: (n, k) complex with unit-norm columns."""
    adj = basis.H
    proj = basis @ adj
    coeff_rows = adj.view(-1)  # hazard: CTG101
    return proj, coeff_rows


def main():
    a = torch.randn(8, 3, dtype=torch.complex64)
    basis = normalize_columns(a)
    proj, coeff = column_projector(basis)
    print(proj.shape, coeff.shape)
