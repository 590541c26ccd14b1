"""HF-style attention mask: a (batch, 1, 1, key) padding mask is expanded to
(batch, heads, query, key) and handed to a helper that adds the causal part in place;
masked_fill_ on an expanded tensor raises (many elements share one memory location)."""
import torch


def add_causal(mask):
    query, key = mask.shape[-2:]
    future = torch.ones(query, key, dtype=torch.bool).triu(1)
    return mask.masked_fill_(future, True)  # bug-line: CTG108


padding = torch.zeros(2, 1, 1, 6, dtype=torch.bool)
mask = add_causal(padding.expand(2, 4, 6, 6))
