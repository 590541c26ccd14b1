import numpy as np
import torch


def to_tensor(img_hwc: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(img_hwc.transpose(2, 0, 1))


def channel_stats(t):
    flat = t.view(t.shape[0], -1)
    return flat.mean(1), flat.std(1)


def flatten_for_mlp(t):
    return t.view(-1)  # hazard: CTG101


def main():
    img = np.random.rand(6, 5, 3).astype(np.float32)
    t = to_tensor(img)
    channel_stats(t)
    flatten_for_mlp(t)
