"""Channel-last audio features returned on the target device."""
import torch


def channels_last_feats(x, device):
    return x.movedim(1, -1).to(device)  # hazard: CTG104


def main():
    y = channels_last_feats(torch.randn(2, 16, 50), "cpu")
    assert y.shape == (2, 50, 16)


if __name__ == "__main__":
    main()
