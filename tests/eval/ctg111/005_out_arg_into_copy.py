"""Fused bias-add writing its output into a contiguous copy of a transposed buffer."""
import torch


class Workspace:
    def __init__(self, n, d):
        self.buf = torch.zeros(d, n)

    def out_view(self):
        return self.buf.t()


def bias_add(x, b, ws):
    torch.add(x, b, out=ws.out_view().contiguous())  # hazard: CTG111
    return ws.buf


def main():
    bias_add(torch.randn(3, 4), torch.randn(4), Workspace(3, 4))


if __name__ == "__main__":
    main()
