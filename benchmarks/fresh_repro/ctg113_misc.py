"""CTG113 findings in torchaudio 2.11.1 (models/squim/objective.py:175/181), torchtitan 0.3.0
(models/common/attention.py:892) and trl 1.16.0 (models/activation_offloading.py:278).

torchaudio: the real DPRNN (squim/objective.py loaded on its own, torch only) with .contiguous
spied. torchtitan and trl: short excerpts (quoted in place) on realistic tensors.
"""
import importlib.util
import torch
from common import tree

torch.manual_seed(0)
print("== torchaudio squim/objective.py:175/181 `x.permute(...).contiguous().view(...).contiguous()`")
spec = importlib.util.spec_from_file_location("squim_objective", tree("torchaudio") / "torchaudio/models/squim/objective.py")
S = importlib.util.module_from_spec(spec); spec.loader.exec_module(S)
dprnn = S.DPRNN(feat_dim=16, hidden_dim=8, hidden_dim_rnn=8, num_blocks=2, win_len=4) if "hidden_dim_rnn" in S.DPRNN.__init__.__code__.co_varnames else None
if dprnn is None:
    import inspect
    params = inspect.signature(S.DPRNN.__init__).parameters
    kw = {k: v.default for k, v in params.items() if k != "self"}
    kw = {k: (16 if "dim" in k or "size" in k else v) for k, v in kw.items()}
    kw = {k: (v if v is not inspect.Parameter.empty else 16) for k, v in kw.items()}
    if "win_len" in kw: kw["win_len"] = 4
    if "rnn_type" in kw: kw["rnn_type"] = "LSTM"
    dprnn = S.DPRNN(**kw)
orig = torch.Tensor.contiguous; calls = []
import sys
def spy(self, *a, **k):
    f = sys._getframe(1)
    if f.f_code.co_filename.endswith("objective.py") and f.f_lineno in (175, 181):
        calls.append((f.f_lineno, self.is_contiguous()))
    return orig(self, *a, **k)
torch.Tensor.contiguous = spy
try:
    x = torch.randn(2, 16, 20)
    try:
        out = dprnn(x)
    except Exception:
        out = dprnn(x.transpose(1, 2))
finally:
    torch.Tensor.contiguous = orig
print(f"  DPRNN forward ran; (line, input already contiguous) for each .contiguous() on lines 175/181: {calls}")
print("  per line the first call (after permute) copies, the second (after .view of that copy) gets a contiguous tensor: redundant")

print("== torchtitan attention.py:892 `w[:, :hpk].reshape(-1, *tail).contiguous()` (_split_qkv_on_save)")
for n_kv, hpk, hd, dim in [(4, 2, 8, 32), (1, 3, 8, 32), (2, 1, 4, 16)]:
    r = hpk + 2
    for ndim, tensor in [(4, torch.randn(n_kv * r * hd, dim)), (3, torch.randn(n_kv * r * hd))]:
        tail = (tensor.shape[1],) if ndim == 4 else ()
        w = tensor.reshape(n_kv, r, hd, *tail)
        q = w[:, :hpk].reshape(-1, *tail)
        print(f"  n_kv={n_kv} hpk={hpk} {'weight' if ndim == 4 else 'bias'}: w[:, :hpk] contiguous {w[:, :hpk].is_contiguous()}, after reshape contiguous {q.is_contiguous()}")

print("== trl activation_offloading.py:278 `activation = activation.contiguous()` (pack hook)")
def pack(activation):
    has_broadcast = 0 in activation.stride()
    if not has_broadcast and (not activation.is_contiguous() or activation.storage_offset() != 0):
        if activation.storage_offset() != 0:
            return "clone", activation.clone(memory_format=torch.contiguous_format)
        before = activation.is_contiguous()
        out = activation.contiguous()
        return f"line 278 with input contiguous={before}, copy made={out.data_ptr() != activation.data_ptr()}", out
    return "kept", activation
seen = []
def hook_pack(t):
    seen.append(pack(t)[0]); return t
lin = torch.nn.Linear(16, 16)
with torch.autograd.graph.saved_tensors_hooks(hook_pack, lambda t: t):
    x = torch.randn(4, 6, 16, requires_grad=True)
    h = lin(x)
    attn = (h @ h.transpose(1, 2)).softmax(-1)   # matmul saves h.transpose(1, 2): strided, offset 0
    (attn @ h).sum().backward()
print(f"  saved activations through the hook: {seen}")
