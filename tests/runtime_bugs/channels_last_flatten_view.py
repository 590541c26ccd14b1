"""A classifier head written for NCHW: after switching the model to channels_last, the conv
output is channels_last and .view(n, -1) raises (docs/layout-facts.md)."""
import torch
from torch import nn

conv = nn.Conv2d(3, 8, 3).to(memory_format=torch.channels_last)
images = torch.randn(2, 3, 16, 16).contiguous(memory_format=torch.channels_last)
features = conv(images)
logits_in = features.view(features.size(0), -1)  # bug-line: CTG101
