import torch


def hankel(coeffs, n):
    return coeffs.as_strided((n, n), (1, 1))


class Smoother:
    def __init__(self, n):
        self.n = n

    def scaled(self, coeffs):
        mat = hankel(coeffs.clone(), self.n)
        mat.mul_(0.5)  # hazard: CTG108
        return mat


def main():
    print(Smoother(4).scaled(torch.randn(7)).shape)
