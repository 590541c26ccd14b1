import torch
from torch import nn


class FeatureRecorder:
    def __init__(self, module):
        self.feats = None
        module.register_forward_hook(self.hook)

    def hook(self, module, inp, out):
        self.feats = out.detach().clone()

    def as_matrix(self):
        n = self.feats.shape[0]
        return self.feats.view(n, -1)  # hazard: CTG101


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 6)

    def forward(self, x):
        return self.lin(x).transpose(1, 2)


def main():
    blk = Block()
    rec = FeatureRecorder(blk)
    blk(torch.randn(2, 4, 6))
    rec.as_matrix()
