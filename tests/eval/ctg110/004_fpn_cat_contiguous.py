"""FPN fusion: channels_last levels concatenated, then made contiguous before the head."""
import torch
import torch.nn.functional as F


class FPNFuse:
    def __init__(self, channels):
        self.channels = channels

    def upsample(self, f, size):
        return F.interpolate(f, size=size, mode="nearest")

    def fuse(self, feats):
        size = feats[0].shape[-2:]
        ups = [feats[0]] + [self.upsample(f, size) for f in feats[1:]]
        fused = torch.cat(ups, dim=1)
        return fused.contiguous()  # hazard: CTG110


def main():
    feats = [torch.randn(1, 4, 16 // 2 ** i, 16 // 2 ** i).contiguous(memory_format=torch.channels_last)
             for i in range(3)]
    assert FPNFuse(4).fuse(feats).shape == (1, 12, 16, 16)


if __name__ == "__main__":
    main()
