"""A per-row bias built with expand() and then updated in place: arithmetic on the expanded
tensor raises because all rows share one memory row."""
import torch

bias = torch.zeros(8).expand(4, 8)
bias.add_(torch.randn(4, 8))  # bug-line: CTG108
