"""A TF->PyTorch converter assigns the (in, out) kernel transposed through .data, so the
Parameter and therefore its gradient keep transposed strides; a hand-written optimizer that
flattens gradients with .view(-1) (Apex/DeepSpeed-style flat buffers) then raises."""
import torch
from torch import nn

tf_kernel = torch.randn(16, 8)                     # TF Dense kernel: (in, out)
layer = nn.Linear(16, 8)
layer.weight.data = tf_kernel.t()
layer(torch.randn(4, 16)).sum().backward()


def flat_grads(parameters):
    return torch.cat([p.grad.view(-1) for p in parameters])  # bug-line: CTG101


flat = flat_grads(list(layer.parameters()))
