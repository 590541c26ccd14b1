"""Input normalisation checks layout eagerly before tracing; the traced function has no branch."""
import torch


def ensure_row_major(x):
    if not x.is_contiguous():
        x = x.contiguous()
    return x


def gelu_mlp(x):
    return torch.nn.functional.gelu(x @ x.transpose(-2, -1))


def main():
    ex = ensure_row_major(torch.randn(2, 8, 4).transpose(1, 2))
    traced = torch.jit.trace(gelu_mlp, ex)
    assert traced(ex).shape == (2, 4, 4)


if __name__ == "__main__":
    main()
