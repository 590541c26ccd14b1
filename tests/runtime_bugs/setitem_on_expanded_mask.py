"""A mask expanded from one row, then edited for one sample: the write silently lands in the
shared row, so every sample is edited."""
import torch

row = torch.ones(6)
mask = row.expand(3, 6)
mask[0, 0] = 0  # bug-line: CTG108
print(mask[:, 0])
