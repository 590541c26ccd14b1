import torch
from torch.nn import functional as F


class CTCHead(torch.nn.Module):
    def __init__(self, d=16, vocab=10):
        super().__init__()
        self.proj = torch.nn.Linear(d, vocab)

    def forward(self, feats):
        # (B, T, V) -> (T, B, V) as F.ctc_loss expects
        return F.log_softmax(self.proj(feats), dim=-1).transpose(0, 1)


def frame_confidence(log_probs):
    T, B, V = log_probs.shape
    flat = log_probs.view(T * B, V)  # hazard: CTG101
    return flat.max(dim=-1).values.view(T, B)


def main():
    head = CTCHead()
    lp = head(torch.randn(3, 7, 16))
    targets = torch.randint(1, 10, (3, 4))
    F.ctc_loss(lp, targets, torch.full((3,), 7), torch.full((3,), 4))
    frame_confidence(lp)
