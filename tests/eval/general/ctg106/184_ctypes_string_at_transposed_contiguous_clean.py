import ctypes

import torch
from torch import nn


def export_raw(t):
    nbytes = t.numel() * t.element_size()
    return ctypes.string_at(t.data_ptr(), nbytes)


class LinearExporter:
    """Writes weights in (in_features, out_features) order for a C inference engine."""

    def __init__(self, layer: nn.Linear):
        self.layer = layer

    def blobs(self):
        w = self.layer.weight.detach().t().contiguous()
        return {"weight": export_raw(w), "shape": tuple(w.shape)}


def main():
    exp = LinearExporter(nn.Linear(6, 4))
    out = exp.blobs()
    print(len(out["weight"]), out["shape"])
