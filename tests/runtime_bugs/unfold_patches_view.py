"""Extracting patches with F.unfold and transposing to (batch, patches, features); the patch
reshape for a per-patch conv uses .view() and raises."""
import torch
import torch.nn.functional as F


def image_to_patches(images, size):
    return F.unfold(images, size, stride=size).transpose(1, 2)


patches = image_to_patches(torch.randn(2, 3, 16, 16), 4)
per_patch = patches.view(-1, 3, 4, 4)  # bug-line: CTG101
