import torch
import torch.nn.functional as F


class Seq2SeqHead(torch.nn.Module):
    def __init__(self, d=8, vocab=12):
        super().__init__()
        self.proj = torch.nn.Linear(d, vocab)

    def forward(self, dec_out_tbd):
        return self.proj(dec_out_tbd).transpose(0, 1)


def lm_loss(logits, labels):
    logits = logits.float()
    V = logits.size(-1)
    return F.cross_entropy(logits.view(-1, V), labels.view(-1))  # hazard: CTG101


def main():
    head = Seq2SeqHead().to(torch.bfloat16)
    logits = head(torch.randn(5, 2, 8, dtype=torch.bfloat16))
    lm_loss(logits, torch.randint(0, 12, (2, 5)))
