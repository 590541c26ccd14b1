import torch


def precompute_freqs(head_dim, seq_len, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
    t = torch.arange(seq_len).float()
    return torch.polar(torch.ones(seq_len, head_dim // 2), torch.outer(t, freqs))


def apply_rotary(q, freqs, n_heads):
    b, t, d = q.shape
    head_dim = d // n_heads
    qh = q.view(b, t, n_heads, head_dim // 2, 2)
    qc = torch.view_as_complex(qh)
    rotated = torch.view_as_real(qc * freqs[:, None, :])
    return rotated.view(b, t, -1)


def main():
    q = torch.randn(2, 12, 64)
    freqs = precompute_freqs(16, 12)
    out = apply_rotary(q, freqs, n_heads=4)
    print(out.shape)
