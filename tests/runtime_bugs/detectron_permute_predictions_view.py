"""detectron2's permute_to_N_HWA_K written with .view() after the permute (the library uses
reshape): the head's (N, A*K, H, W) prediction map is permuted to (N, H, W, A, K) and
flattening it with .view() raises."""
import torch
from torch import nn


def permute_to_n_hwa_k(predictions, classes):
    n, _, h, w = predictions.shape
    predictions = predictions.view(n, -1, classes, h, w).permute(0, 3, 4, 1, 2)
    return predictions.view(n, -1, classes)  # bug-line: CTG101


head = nn.Conv2d(8, 3 * 4, 3, padding=1)
logits = permute_to_n_hwa_k(head(torch.randn(2, 8, 6, 6)), 4)
