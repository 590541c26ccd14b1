import torch
import torch.nn.functional as F
from torch import nn


class ProtoClassifier(nn.Module):
    def __init__(self, dim, n_protos):
        super().__init__()
        self.protos = nn.Parameter(torch.randn(dim, n_protos))

    def forward(self, x):
        protos = F.normalize(self.protos.t(), dim=-1)
        feats = F.normalize(x, dim=-1)
        sims = feats @ protos.t()
        flat_protos = protos.view(-1)  # hazard: CTG101
        return sims, flat_protos.norm()


def main():
    clf = ProtoClassifier(8, 5)
    sims, n = clf(torch.randn(4, 8))
    print(sims.shape, n)
