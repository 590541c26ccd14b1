"""Shortening a model's context: the positional table is cut and checkpointed."""
import io

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, ctx, dim):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, ctx, dim))

    def shortened_pos(self, new_ctx):
        return self.pos.data[:, :new_ctx]


def main():
    m = Model(2048, 16)
    torch.save({"pos": m.shortened_pos(128)}, io.BytesIO())  # hazard: CTG112


if __name__ == "__main__":
    main()
