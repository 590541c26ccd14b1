"""Ensemble evaluation: the same channels_last batch is converted for every member."""
import torch
import torch.nn as nn


def load_batch():
    return torch.randn(2, 3, 8, 8).contiguous(memory_format=torch.channels_last)


def ensemble(models, batch):
    preds = []
    for m in models:
        preds.append(m(batch.contiguous()))  # hazard: CTG109
    return torch.stack(preds).mean(0)


def main():
    models = [nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten()) for _ in range(3)]
    with torch.no_grad():
        assert ensemble(models, load_batch()).shape == (2, 144)


if __name__ == "__main__":
    main()
