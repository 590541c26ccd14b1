"""Saves query and key weights re-packed with torch.cat (a fresh tensor)."""
import io

import torch


def qk_packed(w):
    q, k, _ = w.split(w.shape[0] // 3, dim=0)
    return torch.cat([q, k], dim=0)


def main():
    torch.save(qk_packed(torch.randn(48, 16)), io.BytesIO())


if __name__ == "__main__":
    main()
