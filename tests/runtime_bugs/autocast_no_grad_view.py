"""Evaluation under torch.no_grad() and torch.autocast('cpu'): the bfloat16 matmul result is
transposed for the output projection and flattened with .view(), which raises."""
import torch


def project(hidden, weight):
    mixed = (hidden @ weight).transpose(0, 1)
    return mixed.view(-1)  # bug-line: CTG101


with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    project(torch.randn(4, 8), torch.randn(8, 6))
