import torch


def hermitian_flat(z):
    zh = z.mH.resolve_conj()
    return zh.view(-1)  # hazard: CTG101


def main():
    print(hermitian_flat(torch.randn(3, 4, dtype=torch.complex64)).shape)
