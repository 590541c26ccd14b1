"""Merging one LoRA delta into several frozen layers; the delta is re-copied per layer."""
import torch
import torch.nn as nn


def lora_delta(A, B, scale):
    return (B @ A).t() * scale


@torch.no_grad()
def merge_into(layers, A, B, scale=0.5):
    delta = lora_delta(A, B, scale)
    for layer in layers:
        layer.weight += delta.contiguous()  # hazard: CTG109


def main():
    layers = [nn.Linear(8, 8) for _ in range(3)]
    merge_into(layers, torch.randn(2, 8), torch.randn(8, 2))


if __name__ == "__main__":
    main()
