import torch


class RunningCovariance:
    def __init__(self, dim):
        self.sum = torch.zeros(dim)
        self.outer = torch.zeros(dim, dim)
        self.n = 0
        self.last_centered = None

    def __call__(self, batch):
        self.sum += batch.sum(0)
        self.n += batch.size(0)
        centered = batch - self.sum / self.n
        self.last_centered = centered.t()
        self.outer += self.last_centered @ centered
        return self.outer / max(self.n - 1, 1)

    def last_flat(self):
        return self.last_centered.view(-1)  # hazard: CTG101


def main():
    cov = RunningCovariance(4)
    for _ in range(3):
        c = cov(torch.randn(8, 4))
    print(c.shape, cov.last_flat().shape)
