"""An audio pipeline transposes (batch, frames, mel) features to channels-first and a generic
helper in another module moves the batch to the accelerator: .to() keeps the transposed
strides on the device, and flattening the features with .view() raises. Without CUDA, a
same-device copy stands in for the move (the same stride-preserving copy)."""
import torch

from _data_utils import frames_to_channels_first, move_batch

device = "cuda" if torch.cuda.is_available() else "cpu"
batch = {"features": frames_to_channels_first(torch.randn(4, 50, 16)), "labels": torch.zeros(4)}
on_device = move_batch(batch, device)
flat = on_device["features"].view(4, -1)  # bug-line: CTG101, CTG104
