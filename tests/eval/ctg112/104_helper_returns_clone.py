"""Prompt cache whose persist path saves a cloned prefix produced by a helper."""
import io

import torch


def prefix(cache, n):
    return cache[:, :, :n].clone()


def main():
    cache = torch.zeros(1, 2, 512, 8)
    torch.save({"k": prefix(cache, 7)}, io.BytesIO())


if __name__ == "__main__":
    main()
