"""CTG113 finding in fla-core 0.6.0 (fla/ops/cyfa/chunk.py:1403 `q=weights.contiguous(),`),
reported once the CTG113 parameter check was corrected (so judged later than the
rest of the fresh corpus, the same way).

The path, quoted in short: `_point_write` returns `write = torch.empty(bsz, seq_len, n_heads,
num_slots, ...)`; `_scalar_decay_fused_readout_fwd` allocates `weights = torch.empty_like(write)`,
hands it to a Triton kernel that stores into it, and returns it; the caller passes
`weights.contiguous()` on. Run here with the shapes the module's own tests use, the kernel
replaced by a write into the buffer (it stores through the pointer, never re-strides).
"""
import torch

for bsz, seq_len, n_heads, num_slots in ((1, 64, 2, 16), (2, 128, 4, 32)):
    write = torch.empty(bsz, seq_len, n_heads, num_slots, dtype=torch.bfloat16)
    weights = torch.empty_like(write)
    weights.copy_(torch.randn(weights.shape))  # the kernel's stores
    same = weights.contiguous() is weights
    print(f"(B={bsz}, T={seq_len}, H={n_heads}, N={num_slots}): weights.is_contiguous()="
          f"{weights.is_contiguous()}, weights.contiguous() is weights: {same}")
    assert same
print("CTG113 fla cyfa/chunk.py:1403: TRUE (the copy is a no-op on every path)")
