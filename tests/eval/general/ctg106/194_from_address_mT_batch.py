import ctypes

import torch


class BatchedMatrixWriter:
    """Hands per-batch transposed matrices to a C routine expecting row-major data."""

    def __init__(self):
        self.sent = []

    def send(self, mats):
        mt = mats.mT
        n = mt.numel()
        view = (ctypes.c_float * n).from_address(mt.data_ptr())  # hazard: CTG106
        self.sent.append(sum(view))
        return self.sent[-1]


def main():
    writer = BatchedMatrixWriter()
    print(writer.send(torch.randn(2, 3, 4)))
