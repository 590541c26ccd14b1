"""CTG102 findings in torchtitan 0.3.0 (experiments/rl/tests/test_bitwise_parity.py:393/427),
unsloth 2026.10.9 (unsloth/models/decision.py:464, unsloth/optimizers/q_galore_projector.py:163/175/271).

torchtitan / decision.py: short excerpts on realistic shapes (compute_logprobs is
-F.cross_entropy(logits.reshape(B*L, V), labels.reshape(B*L), reduction='none').reshape(B, L),
torchtitan/components/loss.py:433). q_galore_projector.py is loaded on its own (torch only) and run.
"""
import importlib.util
import io
import torch
import torch.nn.functional as F
from common import tree

torch.manual_seed(0)
print("== torchtitan test_bitwise_parity.py:393 results.append(logprobs[0, offset : offset + sl - 1]) / :427 logprobs[i, : seq_len - 1]")
B, L, V = 3, 12, 50
logits = torch.randn(B, L, V); labels = torch.randint(0, V, (B, L))
logprobs = -F.cross_entropy(logits.reshape(B * L, V), labels.reshape(B * L), reduction="none").reshape(B, L)
r1 = logprobs[0, 2: 2 + 5 - 1]; r2 = logprobs[1, : 7 - 1]
for name, r in [("packed row slice", r1), ("padded row slice", r2)]:
    print(f"  {name}: shape {tuple(r.shape)} stride {r.stride()} contiguous {r.is_contiguous()}; pins the (B, L) logprobs "
          f"{r.untyped_storage().nbytes()} B, and the test keeps one slice per row of it")

print("== unsloth decision.py:464 logits.append(z[row, : len(target)])")
z = torch.randn(4, 9, 6).float().cpu()
s = z[1, :5]
print(f"  z[row, :len(target)] shape {tuple(s.shape)} stride {s.stride()} contiguous {s.is_contiguous()}; every row of z is appended, so z is kept anyway (only padding positions extra)")

print("== unsloth q_galore_projector.py:271 self.ortho_matrix = float_ortho (and :163/:175 _ortho_float_cache = _load_ortho())")
spec = importlib.util.spec_from_file_location("qgp", tree("unsloth") / "unsloth/optimizers/q_galore_projector.py")
Q = importlib.util.module_from_spec(spec); spec.loader.exec_module(Q)
cls = [v for v in vars(Q).values() if isinstance(v, type) and hasattr(v, "project") and hasattr(v, "project_back")][0]
for (m, n), rank, dtype in [((1024, 4096), 512, torch.float32), ((4096, 1024), 512, torch.float32), ((1024, 4096), 128, torch.float32),
                             ((1024, 4096), 512, torch.bfloat16)]:
    p = cls(rank=rank)
    g = torch.randn(m, n, dtype=dtype)
    low = p.project(g, step=0)
    o = p.ortho_matrix
    own = o.numel() * o.element_size(); pinned = o.untyped_storage().nbytes()
    buf = io.BytesIO(); torch.save(p.state_dict(), buf)
    same_cache = p._ortho_float_cache is o
    back = p.project_back(low)
    print(f"  grad {m}x{n} {str(dtype)[6:]} rank {rank}: ortho {tuple(o.shape)} contiguous {o.is_contiguous()}, own {own/2**20:.2f} MiB, "
          f"pinned storage {pinned/2**20:.2f} MiB ({pinned/own:.2f}x); projector state_dict torch.save {buf.tell()/2**20:.2f} MiB; "
          f"_ortho_float_cache is ortho_matrix: {same_cache}; cleared by project_back: {p._ortho_float_cache is None}")
