"""Video clip stacked from channels_last frames: the 5-D clip is made contiguous for Conv3d."""
import torch
import torch.nn as nn


def clip_from_frames(frames):
    return torch.stack(frames, dim=2)  # (N, C, T, H, W)


def main():
    frames = [torch.randn(1, 3, 8, 8).contiguous(memory_format=torch.channels_last) for _ in range(4)]
    clip = clip_from_frames(frames).contiguous()
    with torch.no_grad():
        assert nn.Conv3d(3, 4, 3)(clip).shape == (1, 4, 2, 6, 6)


if __name__ == "__main__":
    main()
