import ctypes

import torch
from torch import nn


class ActivationDumper:
    """Copies NHWC activations into a preallocated host buffer for a DSP runtime."""

    def __init__(self, numel):
        self.buf = (ctypes.c_float * numel)()

    def dump(self, feats):
        nhwc = feats.permute(0, 2, 3, 1).contiguous()
        nbytes = nhwc.numel() * nhwc.element_size()
        ctypes.memmove(self.buf, nhwc.data_ptr(), nbytes)
        return list(self.buf[:4])


def main():
    conv = nn.Conv2d(3, 4, 3, padding=1)
    with torch.no_grad():
        feats = conv(torch.randn(1, 3, 5, 5))
    dumper = ActivationDumper(feats.numel())
    print(dumper.dump(feats))
