"""Training-style loop: the transposed weight is updated in place every iteration."""
import torch


def fit(w, xs, lr=0.1):
    wt = w.t()
    for x in xs:
        y = x @ wt.contiguous()
        grad = x.t() @ (y - 1.0)
        wt.sub_(lr * grad)
    return w


def main():
    w = fit(torch.zeros(3, 4), [torch.randn(2, 4) for _ in range(3)])
    assert w.shape == (3, 4)


if __name__ == "__main__":
    main()
