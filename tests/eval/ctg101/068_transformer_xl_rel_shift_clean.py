import torch
from torch import nn


class RelPartialLearnable(nn.Module):
    @staticmethod
    def _rel_shift(x):
        zero_pad = x.new_zeros((x.size(0), x.size(1), x.size(2), 1))
        x_padded = torch.cat([zero_pad, x], dim=3)
        x_padded = x_padded.view(x.size(0), x.size(1), x.size(3) + 1, x.size(2))
        return x_padded[:, :, 1:].view_as(x)

    def forward(self, q, r):
        bd = torch.einsum("bhid,bhjd->bhij", q, r)
        return self._rel_shift(bd)


def main():
    RelPartialLearnable()(torch.randn(2, 2, 5, 4), torch.randn(2, 2, 5, 4))
