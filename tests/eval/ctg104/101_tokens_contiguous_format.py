"""NHWC tokens moved with an explicit contiguous memory format."""
import torch

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def to_tokens(images, device):
    b, c, h, w = images.shape
    x = images.permute(0, 2, 3, 1).to(device, memory_format=torch.contiguous_format)
    return x.view(b, h * w, c)


def main():
    tokens = to_tokens(torch.randn(2, 3, 8, 8), DEVICE)
    assert tokens.shape == (2, 64, 3)


if __name__ == "__main__":
    main()
