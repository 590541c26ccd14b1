"""Batch helpers imported by to_device_util_in_sibling.py: not a bug script."""


def move_batch(batch, device):
    return {name: value.to(device, copy=True) for name, value in batch.items()}


def frames_to_channels_first(features):
    """(batch, frames, mel) -> (batch, mel, frames) for a Conv1d front end."""
    return features.transpose(1, 2)
