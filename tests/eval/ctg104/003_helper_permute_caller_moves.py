"""Data pipeline: a helper converts to channels-last order; the loop moves the batch."""
import torch

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def nchw_to_nhwc(x):
    return x.permute(0, 2, 3, 1)


def run_epoch(batches, device):
    seen = 0
    for imgs in batches:
        batch = nchw_to_nhwc(imgs).to(device, non_blocking=True)  # hazard: CTG104
        seen += batch.shape[0]
    return seen


def main():
    assert run_epoch([torch.randn(4, 3, 8, 8) for _ in range(2)], DEVICE) == 8


if __name__ == "__main__":
    main()
