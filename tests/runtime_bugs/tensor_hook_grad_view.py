"""A gradient hook (registered on a Parameter in user code) flattens the gradient with .view()
for a norm statistic; the Parameter was assigned transposed, so its gradient is transposed
too (measured) and the view raises during backward."""
import torch
from torch import nn

layer = nn.Linear(6, 4, bias=False)
layer.weight.data = torch.randn(6, 4).t()
norms = []
layer.weight.register_hook(lambda grad: norms.append(grad.view(-1).norm()))  # bug-line: CTG101
layer(torch.randn(3, 6)).sum().backward()
