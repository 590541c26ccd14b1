"""Ordinary checkpoint of a model's state dict."""
import io

import torch
import torch.nn as nn


def checkpoint(model, f):
    torch.save(model.state_dict(), f)


def main():
    checkpoint(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)), io.BytesIO())


if __name__ == "__main__":
    main()
