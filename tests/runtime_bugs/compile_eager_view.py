"""A torch.compile'd (backend='eager') function merges a transposed tensor with .view(): dynamo
raises while tracing, with the user's line only in the exception's recorded stack."""
import torch


def merge(x):
    return x.transpose(1, 2).view(x.size(0), -1)  # bug-line: CTG101


compiled = torch.compile(merge, backend="eager")
compiled(torch.randn(2, 3, 4))
