"""fairseq-style encoder output: the encoder works time-major (T x B x C) and transposes to
batch-major for the consumer; the consumer's pooling flattens with .view(batch, -1)."""
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(width, 2, dim_feedforward=32)

    def forward(self, tokens):                 # tokens: B x T x C
        x = tokens.transpose(0, 1)             # T x B x C
        x = self.layer(x)
        return {"encoder_out": x.transpose(0, 1)}


def pooled(encoder_out):
    hidden = encoder_out["encoder_out"]
    return hidden.view(hidden.size(0), -1)  # bug-line: CTG101


pooled(Encoder()(torch.randn(2, 5, 16)))
