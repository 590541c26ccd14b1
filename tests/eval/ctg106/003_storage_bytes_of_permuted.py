"""Shared-memory IPC: sends the raw storage bytes of an NHWC frame."""
import torch


def to_nhwc(frame):
    return frame.permute(1, 2, 0)


def serialize(frame):
    hwc = to_nhwc(frame)
    payload = bytes(hwc.untyped_storage())  # hazard: CTG106
    return payload, tuple(hwc.shape)


def main():
    payload, shape = serialize(torch.rand(3, 4, 5))
    assert len(payload) == 3 * 4 * 5 * 4 and shape == (4, 5, 3)


if __name__ == "__main__":
    main()
