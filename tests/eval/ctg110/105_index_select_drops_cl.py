"""Channel selection with index_select (returns NCHW) followed by `.contiguous()`."""
import torch


def select_channels(feat, keep):
    return feat.index_select(1, keep)


def head_input(feat):
    sel = select_channels(feat, torch.tensor([0, 2, 3]))
    return sel.contiguous()


def main():
    f = torch.randn(1, 6, 4, 4).contiguous(memory_format=torch.channels_last)
    assert head_input(f).shape == (1, 3, 4, 4)


if __name__ == "__main__":
    main()
