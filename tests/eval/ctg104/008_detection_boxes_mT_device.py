"""Anchor grid kept coordinate-major on the device for a vectorised matcher."""
import torch


class Matcher:
    def __init__(self, anchors, device):
        self.device = device
        self.anchors_t = self.prepare(anchors)

    def prepare(self, anchors):
        per_level = anchors.view(3, -1, 4)
        return per_level.mT.to(self.device)  # hazard: CTG104


def main():
    m = Matcher(torch.rand(3 * 20, 4), "cpu")
    assert m.anchors_t.shape == (3, 4, 20)


if __name__ == "__main__":
    main()
