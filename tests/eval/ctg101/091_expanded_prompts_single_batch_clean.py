import torch
from torch import nn


class Prompted(nn.Module):
    def __init__(self, n_prompts=3, d=4):
        super().__init__()
        self.prompts = nn.Parameter(torch.randn(1, n_prompts, d))

    def batch_prompts(self, B):
        return self.prompts.expand(B, -1, -1)

    def prompt_matrix(self, B):
        p = self.batch_prompts(B)
        return p.view(B * p.shape[1], -1)


def main():
    Prompted().prompt_matrix(1)
