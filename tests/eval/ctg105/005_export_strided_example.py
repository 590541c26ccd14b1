"""torch.export of an audio encoder with a decimated example waveform batch."""
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 4, 5)

    def forward(self, x):
        return self.conv(x).relu()


def decimate(x):
    return x[:, :, ::2]


def main():
    model = Encoder().eval()
    example = decimate(torch.randn(1, 2, 64))
    ep = torch.export.export(model, (example,))  # hazard: CTG105
    assert ep.module()(torch.randn(1, 2, 32)).shape == (1, 4, 28)


if __name__ == "__main__":
    main()
