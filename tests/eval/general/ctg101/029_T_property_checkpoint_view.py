import torch
from torch import nn


def export_linear(layer: nn.Linear):
    """Export weights in (in_features, out_features) order for a numpy backend."""
    w = layer.weight.detach().T
    rows, cols = w.shape
    flat = w.view(rows * cols)  # hazard: CTG101
    return {"shape": (rows, cols), "data": flat.tolist(), "bias": layer.bias.detach().tolist()}


def main():
    layer = nn.Linear(6, 4)
    blob = export_linear(layer)
    print(blob["shape"], len(blob["data"]))
