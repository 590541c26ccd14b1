"""Attention maps moved to the host for plotting, heads last."""
import torch


def attention(q, k):
    return (q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).softmax(-1)


def maps_for_plotting(attn):
    maps = attn.permute(0, 2, 3, 1).cpu()  # hazard: CTG104
    return maps.numpy()


def main():
    attn = attention(torch.randn(1, 4, 6, 8), torch.randn(1, 4, 6, 8))
    arr = maps_for_plotting(attn)
    assert arr.shape == (1, 6, 6, 4)


if __name__ == "__main__":
    main()
