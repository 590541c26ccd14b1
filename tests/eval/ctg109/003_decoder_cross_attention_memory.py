"""Greedy decoding: the encoder memory is re-laid-out at every decoding step."""
import torch


def cross_attend(q, mem):
    return (q @ mem.transpose(-2, -1)).softmax(-1) @ mem


def greedy_decode(memory, steps):
    # memory arrives sequence-first (T, B, D) from the encoder
    tok = torch.zeros(memory.shape[1], 1, memory.shape[2])
    outs = []
    for _ in range(steps):
        mem = memory.transpose(0, 1).contiguous()  # hazard: CTG109
        tok = cross_attend(tok, mem)
        outs.append(tok)
    return torch.cat(outs, dim=1)


def main():
    out = greedy_decode(torch.randn(7, 2, 8), 3)
    assert out.shape == (2, 3, 8)


if __name__ == "__main__":
    main()
