"""Detector post-processing remembers the box columns of the decoded predictions."""
import torch


def decode(raw, stride):
    # raw: (N, 5 + C): cx, cy, w, h, obj, classes
    out = raw.clone()
    out[:, :2] = out[:, :2].sigmoid() * stride
    out[:, 2:4] = out[:, 2:4].exp() * stride
    return out


class Postprocess:
    def __init__(self, stride):
        self.stride = stride
        self.boxes = None
        self.scores = None

    def __call__(self, raw):
        preds = decode(raw, self.stride)
        self.boxes = preds[:, :4]  # hazard: CTG102
        self.scores = preds[:, 4].sigmoid()
        return self.scores > 0.5


def main():
    post = Postprocess(8)
    keep = post(torch.randn(100, 85))
    assert post.boxes.shape == (100, 4) and keep.shape == (100,)


if __name__ == "__main__":
    main()
