"""Loading a checkpoint saved in the other orientation: nn.Parameter(w.t()) keeps the
transposed strides, and parameters_to_vector / flat optimizers later fail on it."""
import torch
from torch import nn

checkpoint = {"proj": torch.randn(16, 32)}
layer = nn.Linear(16, 32)
layer.weight = nn.Parameter(checkpoint["proj"].t())  # bug-line: CTG103
layer(torch.randn(4, 16))
