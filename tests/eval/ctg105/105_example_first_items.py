"""Traced with the first item of a dataset batch (a leading-dim slice stays contiguous)."""
import torch
import torch.nn as nn


def main():
    dataset_batch = torch.randn(16, 3, 8, 8)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU()).eval()
    traced = torch.jit.trace(model, dataset_batch[:1])
    assert traced(torch.randn(1, 3, 8, 8)).shape == (1, 4, 6, 6)


if __name__ == "__main__":
    main()
