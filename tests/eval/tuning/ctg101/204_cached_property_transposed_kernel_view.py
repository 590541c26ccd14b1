import functools

import torch
from torch import nn


class Deconv(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.kernel = nn.Parameter(torch.randn(n_in, n_out))

    @functools.cached_property
    def kernel_t(self):
        return self.kernel.detach().t()

    def export(self):
        return self.kernel_t.view(-1)  # hazard: CTG101


def main():
    print(Deconv(3, 5).export().shape)
