"""The same converted checkpoint, found by torch.nn.utils.parameters_to_vector: the .view()
that fails is inside torch, so the user line that called it must be named."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 4))
converted = {"0.weight": torch.randn(16, 8), "2.weight": torch.randn(8, 4)}   # (in, out)
for name, kernel in converted.items():
    model.get_parameter(name).data = kernel.t()
vector = nn.utils.parameters_to_vector(model.parameters())  # bug-line: CTG101
