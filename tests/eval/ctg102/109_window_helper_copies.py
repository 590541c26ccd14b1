"""Streaming conv whose helper returns a copied context window."""
import torch
import torch.nn as nn


def last_frames(x, n):
    return x[..., -n:].contiguous()


class StreamingConv(nn.Module):
    def __init__(self, channels, kernel):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel)
        self.context = kernel - 1
        self.state = None

    def forward(self, chunk):
        if self.state is not None:
            chunk = torch.cat([self.state, chunk], dim=-1)
        out = self.conv(chunk)
        self.state = last_frames(chunk, self.context)
        return out


def main():
    m = StreamingConv(4, 3)
    for _ in range(3):
        m(torch.randn(2, 4, 10))
    assert m.state.is_contiguous()


if __name__ == "__main__":
    main()
