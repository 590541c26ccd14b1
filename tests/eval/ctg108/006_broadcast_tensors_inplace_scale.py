"""Box decoding: anchor sizes broadcast against deltas, then scaled in place."""
import torch


def decode(anchors_wh, deltas):
    wh, d = torch.broadcast_tensors(anchors_wh, deltas)
    wh.zero_()  # hazard: CTG108
    return wh + d


def main():
    out = decode(torch.tensor([[10.0, 20.0]]), torch.randn(6, 2))
    assert out.shape == (6, 2)


if __name__ == "__main__":
    main()
