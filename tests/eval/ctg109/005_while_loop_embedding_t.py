"""Sampling loop scoring hidden states against the tied (transposed) embedding."""
import torch


def output_embedding(emb):
    return emb.t()


def sample(emb, h, max_len):
    emb_t = output_embedding(emb)
    tokens = []
    while len(tokens) < max_len:
        logits = h @ emb_t.contiguous()  # hazard: CTG109
        tokens.append(int(logits.argmax()))
        h = torch.tanh(h + 0.1)
    return tokens


def main():
    assert len(sample(torch.randn(20, 8), torch.randn(8), 4)) == 4


if __name__ == "__main__":
    main()
