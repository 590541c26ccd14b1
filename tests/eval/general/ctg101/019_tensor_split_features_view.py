import torch
from torch import nn


class MultiViewHead(nn.Module):
    def __init__(self, dim, seq_len, n_views, classes):
        super().__init__()
        self.n_views = n_views
        part = dim // n_views
        self.heads = nn.ModuleList(nn.Linear(seq_len * part, classes) for _ in range(n_views))

    def forward(self, feats):
        b, t, d = feats.shape
        parts = torch.tensor_split(feats, self.n_views, dim=2)
        logits = []
        for head, part in zip(self.heads, parts):
            summary = part.view(b, -1)  # hazard: CTG101
            logits.append(head(summary))
        return torch.stack(logits).mean(0)


def main():
    head = MultiViewHead(dim=60, seq_len=5, n_views=3, classes=4)
    print(head(torch.randn(2, 5, 60)).shape)
