import torch as th
from torch import nn


class Router(nn.Module):
    def __init__(self, d=8, experts=4):
        super().__init__()
        self.gate = nn.Linear(d, experts)
        self.expert_major = None

    def route(self, tokens):
        probs = th.softmax(self.gate(tokens), dim=-1)
        self.expert_major = th.transpose(probs, 0, 1)
        return probs

    def load_vector(self):
        return self.expert_major.view(-1)  # hazard: CTG101


def main():
    r = Router()
    r.route(th.randn(6, 8))
    r.load_vector()
