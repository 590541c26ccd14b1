"""Augmentation pipeline: one method converts to channels_last, another pads and re-lays out."""
import torch
import torch.nn.functional as F


class Augment:
    def to_device_layout(self, batch):
        return batch.contiguous(memory_format=torch.channels_last)

    def pad(self, batch, p):
        padded = F.pad(batch, (p, p, p, p), mode="reflect")
        return padded.contiguous()  # hazard: CTG110

    def __call__(self, batch):
        return self.pad(self.to_device_layout(batch), 2)


def main():
    assert Augment()(torch.randn(2, 3, 8, 8)).shape == (2, 3, 12, 12)


if __name__ == "__main__":
    main()
