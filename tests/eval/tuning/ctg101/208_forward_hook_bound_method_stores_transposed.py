import torch
from torch import nn


class Recorder:
    def __init__(self, layer):
        self.captured = None
        layer.register_forward_hook(self._capture)

    def _capture(self, module, inputs, output):
        self.captured = output.transpose(0, 1)

    def flat(self):
        return self.captured.view(-1)  # hazard: CTG101


def main():
    layer = nn.Linear(3, 4)
    rec = Recorder(layer)
    layer(torch.randn(5, 3))
    print(rec.flat().shape)
