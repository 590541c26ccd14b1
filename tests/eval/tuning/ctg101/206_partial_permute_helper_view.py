import functools

import torch

to_time_major = functools.partial(torch.permute, dims=(1, 0, 2))


def pack(batch):
    seq = to_time_major(batch)
    t, b, d = seq.shape
    return seq.view(t * b, d)  # hazard: CTG101


def main():
    print(pack(torch.randn(3, 5, 4)).shape)
