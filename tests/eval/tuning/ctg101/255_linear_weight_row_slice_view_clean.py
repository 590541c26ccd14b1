from torch import nn


class Heads(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.dim = dim

    def query_weight(self):
        w = self.qkv.weight.detach()
        return w[: self.dim].view(-1)


def main():
    print(Heads(4, 2).query_weight().shape)
