"""IPC payload from a flattened (copied) NHWC frame."""
import torch


def serialize(frame):
    flat = frame.permute(1, 2, 0).reshape(-1)
    return bytes(flat.untyped_storage())


def main():
    assert len(serialize(torch.rand(3, 4, 5))) == 240


if __name__ == "__main__":
    main()
