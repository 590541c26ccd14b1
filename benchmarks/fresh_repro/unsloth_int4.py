"""unsloth 2026.10.9 unsloth/kernels/int4_packed.py: CTG114 `int4_dequantize(W.t(), qs, dtype).t()` (390),
CTG106 `qs._launch = (packed.data_ptr(), args)` (269), and the CTG114 calls `fast_dequantize(XW.t(), ...)`
in unsloth/kernels/fast_lora.py and utils.py:1788.

Loads int4_packed.py on its own (it imports only torch and triton; needs triton from the deps
folder). fast_dequantize (unsloth/kernels/utils.py:1463) dispatches an Int4QuantState to
int4_dequantize_weight(W, quant_state) unchanged:
    if quant_type is Int4QuantState:
        return _int4_dequantize_weight(W, quant_state)
Kernels are never launched: int4_dequantize / _launch are replaced by recorders.
"""
import importlib.util
import torch
from common import use_packages, tree, flat_read

use_packages()  # deps (triton) on sys.path
spec = importlib.util.spec_from_file_location("int4_packed", tree("unsloth") / "unsloth/kernels/int4_packed.py")
M = importlib.util.module_from_spec(spec); spec.loader.exec_module(M)

N, K, G = 256, 512, 128
packed = torch.randint(-2**31, 2**31 - 1, (N, K // 8), dtype=torch.int32)   # checkpoint/repacked layout [N, K/8], contiguous
qs = M.Int4QuantState(torch.rand(N, K // G, dtype=torch.bfloat16), None, None, (N, K), 4, G, torch.bfloat16)

print("== CTG114 int4_packed.py:390 and fast_lora/utils fast_dequantize(W.t(), ...)")
seen = []
real = M.int4_dequantize
M.int4_dequantize = lambda p, q, dtype=None, out=None: (seen.append(p), torch.empty(N, K))[1]
for label, W in [("caller passes W.t() (fast_lora: fast_dequantize(downW.t(), ...))", packed.t()), ("caller passes W", packed)]:
    seen.clear()
    out = M.int4_dequantize_weight(W, qs)
    p = seen[0]
    print(f"  {label}: W stride {W.stride()} -> int4_dequantize got stride {p.stride()} contiguous {p.is_contiguous()} "
          f"same data_ptr as packed {p.data_ptr() == packed.data_ptr()}; strideless read ok {torch.equal(flat_read(p), p)}; result {tuple(out.shape)}")
M.int4_dequantize = real

print("== CTG106 int4_packed.py:269 qs._launch = (packed.data_ptr(), args)")
calls = []
M._launch = lambda kernel, launchers, key, grid, args, **c: calls.append(args)
M._on_device = lambda dev: __import__("contextlib").nullcontext()
M.int4_dequantize(packed, qs, torch.bfloat16)
M.int4_dequantize(packed, qs, torch.bfloat16)
print(f"  after two calls: cached key == packed.data_ptr(): {qs._launch[0] == packed.data_ptr()}; the pointer is only compared "
      f"(`cached[0] == packed.data_ptr()`) to reuse launch args; P handed to the kernel is packed itself: {calls[0][0] is packed}, contiguous {calls[0][0].is_contiguous()}")
