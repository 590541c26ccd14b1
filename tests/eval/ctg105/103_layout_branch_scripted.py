"""Layout-dependent fast path compiled with torch.jit.script (keeps the branch)."""
import torch


def fused_norm(x):
    if x.is_contiguous():
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    return x.contiguous() * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


def main():
    scripted = torch.jit.script(fused_norm)
    assert scripted(torch.randn(4, 3).t()).shape == (3, 4)


if __name__ == "__main__":
    main()
