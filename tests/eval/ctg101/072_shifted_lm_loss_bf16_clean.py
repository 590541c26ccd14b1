import torch
from torch.nn import functional as F


class CausalLM(torch.nn.Module):
    def __init__(self, d=8, vocab=12):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d)
        self.lm_head = torch.nn.Linear(d, vocab)

    def forward(self, ids, labels=None):
        logits = self.lm_head(torch.tanh(self.emb(ids)))
        return self.loss_function(logits, labels), logits

    @staticmethod
    def loss_function(logits, labels):
        shift_logits = logits[:, :-1].float()
        shift_labels = labels[:, 1:].reshape(-1)
        return F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels)


def main():
    ids = torch.randint(0, 12, (2, 6))
    CausalLM().to(torch.bfloat16)(ids, labels=ids)
