"""Prefix-tuning: a shared prompt is expanded over the batch and the batch copy is zeroed."""
import torch
import torch.nn as nn


class Prefix(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.prompt = torch.randn(n, dim)

    def batch(self, b):
        return self.prompt.unsqueeze(0).expand(b, -1, -1)


def drop_prompt(prefix, b):
    p = prefix.batch(b)
    p.zero_()  # hazard: CTG108
    return p


def main():
    p = drop_prompt(Prefix(3, 4), 2)
    assert p.shape == (2, 3, 4)


if __name__ == "__main__":
    main()
