import torch
from torch import nn


class Mixer(nn.Module):
    def __init__(self, tokens, dim):
        super().__init__()
        self.token_mix = nn.Linear(tokens, tokens)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        y = self.token_mix(x.transpose(1, 2)).transpose(1, 2)
        return self.out(y)


def log_input(module, args, kwargs):
    (x,) = args
    rows = x.view(-1, x.size(-1))  # hazard: CTG101
    module.seen = rows.shape[0]


def main():
    mixer = Mixer(6, 4)
    mixer.out.register_forward_pre_hook(log_input, with_kwargs=True)
    print(mixer(torch.randn(2, 6, 4)).shape, mixer.out.seen)
