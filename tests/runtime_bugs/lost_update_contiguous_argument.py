"""A clamp helper writes through x.contiguous(): for the transposed tensor its caller passes,
.contiguous() is a copy, so the caller's tensor is never clamped."""
import torch


def clamp_inplace(x):
    x.contiguous().clamp_(0.0, 1.0)  # bug-line: CTG111
    return x


scores = torch.randn(5, 3).t()
clamp_inplace(scores)
print(bool((scores <= 1).all()))
