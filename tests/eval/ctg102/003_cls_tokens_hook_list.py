"""Feature extractor hook collects the CLS token of every block."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.fc(x)


class ClsCollector:
    def __init__(self):
        self.cls_tokens = []

    def __call__(self, module, inputs, output):
        self.cls_tokens.append(output[:, 0])  # hazard: CTG102


def main():
    blocks = nn.Sequential(*[Block(16) for _ in range(3)])
    collector = ClsCollector()
    for b in blocks:
        b.register_forward_hook(collector)
    blocks(torch.randn(2, 5, 16))
    assert len(collector.cls_tokens) == 3


if __name__ == "__main__":
    main()
