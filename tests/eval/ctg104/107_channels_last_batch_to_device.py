"""channels_last image batch moved to the device (layout chosen on purpose)."""
import torch


def prepare(images, device):
    cl = images.contiguous(memory_format=torch.channels_last)
    batch = cl.to(device)
    return batch


def main():
    b = prepare(torch.randn(2, 3, 8, 8), "cpu")
    assert b.is_contiguous(memory_format=torch.channels_last)


if __name__ == "__main__":
    main()
