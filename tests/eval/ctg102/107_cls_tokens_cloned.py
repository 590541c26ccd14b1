"""Hook that stores a private copy of each block's CLS token."""
import torch
import torch.nn as nn


class ClsCollector:
    def __init__(self):
        self.cls_tokens = []

    def __call__(self, module, inputs, output):
        self.cls_tokens.append(output[:, 0].clone())


def main():
    blocks = nn.Sequential(nn.Linear(16, 16), nn.GELU(), nn.Linear(16, 16))
    collector = ClsCollector()
    for b in blocks:
        b.register_forward_hook(collector)
    blocks(torch.randn(2, 5, 16))
    assert all(t.is_contiguous() for t in collector.cls_tokens)


if __name__ == "__main__":
    main()
