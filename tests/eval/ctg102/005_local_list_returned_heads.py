"""Split a fused projection into per-head tensors and hand the list back."""
import torch


def split_heads(x, num_heads):
    head_dim = x.shape[-1] // num_heads
    heads = []
    for h in range(num_heads):
        heads.append(x[..., h * head_dim:(h + 1) * head_dim])  # hazard: CTG102
    return heads


def main():
    qkv = torch.randn(2, 7, 32)
    heads = split_heads(qkv, 4)
    assert heads[1].shape == (2, 7, 8)


if __name__ == "__main__":
    main()
