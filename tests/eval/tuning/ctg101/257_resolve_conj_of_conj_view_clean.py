import torch


def conj_flat(z):
    return z.conj().resolve_conj().view(-1)


def main():
    print(conj_flat(torch.randn(3, 4, dtype=torch.complex64)).shape)
