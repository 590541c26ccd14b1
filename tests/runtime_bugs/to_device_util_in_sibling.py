"""An audio pipeline transposes (batch, frames, mel) features to channels-first and a generic
helper in another module moves the batch to the accelerator: .to() keeps the transposed
strides on the device. Without CUDA the meta device stands in for it (the same
stride-preserving move)."""
import torch

from _data_utils import frames_to_channels_first, move_batch

device = "cuda" if torch.cuda.is_available() else "meta"
batch = {"features": frames_to_channels_first(torch.randn(4, 50, 16)), "labels": torch.zeros(4)}
on_device = move_batch(batch, device)
