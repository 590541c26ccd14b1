"""Saves a transposed weight: a full view, no extra storage is written."""
import io

import torch
import torch.nn as nn


def in_out(layer):
    return layer.weight.detach().t()


def main():
    torch.save({"w_in_out": in_out(nn.Linear(16, 8))}, io.BytesIO())


if __name__ == "__main__":
    main()
