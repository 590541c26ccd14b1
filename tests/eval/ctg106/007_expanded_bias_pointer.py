"""Bias broadcast over the batch handed to a raw-pointer epilogue."""
import ctypes

import torch


def broadcast_bias(bias, batch):
    return bias.unsqueeze(0).expand(batch, -1)


def epilogue(out, bias):
    b = broadcast_bias(bias, out.shape[0])
    addr = b.data_ptr()  # hazard: CTG106
    first = ctypes.c_float.from_address(addr).value
    return out + first


def main():
    y = epilogue(torch.zeros(4, 3), torch.tensor([1.0, 2.0, 3.0]))
    assert y.shape == (4, 3)


if __name__ == "__main__":
    main()
