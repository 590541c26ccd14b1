"""torch.export with an example gathered by index_select (always row-major)."""
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 1)

    def forward(self, x):
        return self.fc(x).squeeze(-1)


def pick_features(x, cols):
    return x.t().index_select(1, cols)


def main():
    ex = pick_features(torch.randn(6, 10), torch.arange(6))
    ep = torch.export.export(Scorer().eval(), (ex,))
    assert ep.module()(torch.randn(10, 6)).shape == (10,)


if __name__ == "__main__":
    main()
