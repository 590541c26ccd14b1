"""Exports only the first classes' logits for a calibration set."""
import io

import torch


def logits_for(batch, n_classes_total):
    return torch.randn(batch, n_classes_total)


def export_head(buf, num_classes):
    logits = logits_for(64, 1000)
    head = logits[:, :num_classes]
    torch.save({"head": head}, buf)  # hazard: CTG112


def main():
    export_head(io.BytesIO(), 10)


if __name__ == "__main__":
    main()
