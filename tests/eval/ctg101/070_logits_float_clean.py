import torch
import torch.nn.functional as F


class LMHead(torch.nn.Module):
    def __init__(self, d=8, vocab=12):
        super().__init__()
        self.proj = torch.nn.Linear(d, vocab)

    def forward(self, h):
        return self.proj(h)


def lm_loss(logits, labels):
    shift_logits = logits[..., :-1, :].contiguous().float()
    shift_labels = labels[:, 1:]
    V = shift_logits.size(-1)
    return F.cross_entropy(shift_logits.view(-1, V), shift_labels.reshape(-1))


def main():
    head = LMHead()
    lm_loss(head(torch.randn(2, 5, 8)), torch.randint(0, 12, (2, 5)))
