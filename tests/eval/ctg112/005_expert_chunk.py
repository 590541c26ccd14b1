"""Saving the first expert's weight out of a stacked expert tensor."""
import io

import torch
import torch.nn as nn


class Experts(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n * d, d))

    def expert(self, i, n):
        return self.w.detach().chunk(n, dim=0)[i]


def export_expert(model, f):
    torch.save(model.expert(0, 8), f)  # hazard: CTG112


def main():
    export_expert(Experts(8, 16), io.BytesIO())


if __name__ == "__main__":
    main()
