import torch


def toeplitz_view(coeffs, n):
    """(2n-1,) coefficients -> (n, n) Toeplitz matrix."""
    return coeffs.as_strided((n, n), (1, 1))


class ToeplitzFilter:
    def __init__(self, n):
        self.n = n
        self.coeffs = torch.randn(2 * n - 1)

    def regularized(self, lam):
        mat = toeplitz_view(self.coeffs.clone(), self.n)
        mat.add_(lam * torch.eye(self.n))  # hazard: CTG108
        return mat


def main():
    filt = ToeplitzFilter(5)
    print(filt.regularized(0.1).shape)
