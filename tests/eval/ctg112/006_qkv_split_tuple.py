"""Saves the query and key projections split out of a fused QKV weight."""
import io

import torch


def split_qkv(w):
    return w.split(w.shape[0] // 3, dim=0)


def save_qk(w, f):
    q, k, v = split_qkv(w)
    torch.save((q, k), f)  # hazard: CTG112


def main():
    save_qk(torch.randn(48, 16), io.BytesIO())


if __name__ == "__main__":
    main()
