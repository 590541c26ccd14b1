import torch
from torch import nn


class ToTokens(nn.Module):
    def forward(self, x):
        return x.flatten(2).transpose(1, 2)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 4, stride=4)
        self.tokens = ToTokens()
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.tokens(self.stem(x)))


def attach_token_logger(model, store):
    def hook(module, inputs, output):
        b, n, d = output.shape
        store.append(output.detach().view(b * n, d).mean(0))  # hazard: CTG101
    return model.tokens.register_forward_hook(hook)


def main():
    model = Backbone()
    store = []
    attach_token_logger(model, store)
    print(model(torch.randn(2, 3, 16, 16)).shape, len(store))
