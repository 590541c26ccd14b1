"""CTG103 unsloth 2026.10.9 studio/backend/core/training/diffusion_fp8_prequant.py:180
`torch.zeros((), dtype=torch.bfloat16, device=device).expand(out_f, in_f)` as a frozen Parameter.

Excerpt of the two functions involved (same file): _placeholder_weight (the flagged Parameter) and
dequantize_placeholders, which replaces it with a fresh bf16 weight; load_fp8_transformer then runs
model.load_state_dict(dense, strict=False, assign=True) and model.to(device).eval().
"""
import torch
import torch.nn as nn

PREQUANT_ATTR = "_unsloth_fp8_prequant"


def _placeholder_weight(out_f, in_f, device):
    return torch.nn.Parameter(torch.zeros((), dtype=torch.bfloat16, device=device).expand(out_f, in_f), requires_grad=False)


def dequantize_placeholders(model):
    n = 0
    for mod in model.modules():
        pending = getattr(mod, PREQUANT_ATTR, None)
        if pending is None:
            continue
        q, s = pending
        w = torch.empty(q.shape, dtype=torch.bfloat16, device=q.device)
        with torch.no_grad():
            for i in range(0, q.shape[0], 2048):
                w[i:i + 2048] = (q[i:i + 2048].float() * s[i:i + 2048].reshape(-1, 1)).to(torch.bfloat16)
        mod.weight = nn.Parameter(w, requires_grad=False)
        delattr(mod, PREQUANT_ATTR)
        n += 1
    return n


model = nn.Sequential(nn.Linear(64, 32, dtype=torch.bfloat16), nn.GELU(), nn.Linear(32, 16, dtype=torch.bfloat16))
q = torch.randint(-100, 100, (32, 64)).to(torch.float8_e4m3fn); s = torch.rand(32)
mod = model[0]
mod.weight = _placeholder_weight(32, 64, "cpu"); setattr(mod, PREQUANT_ATTR, (q, s))
model.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith("0.weight")}, strict=False, assign=True)
model = model.to("cpu").eval()
w = mod.weight
print(f"  placeholder weight stride {w.stride()}, storage {w.untyped_storage().nbytes()} bytes, requires_grad {w.requires_grad}")
print(f"  what PEFT reads: device {w.device}, dtype {w.dtype}")
print(f"  trainable params (what an optimizer / clip_grad_norm_ would see): {[n for n, p in model.named_parameters() if p.requires_grad]}")
sd = model.state_dict(); print(f"  state_dict works: 0.weight {tuple(sd['0.weight'].shape)} stride {sd['0.weight'].stride()}")
n = dequantize_placeholders(model)
print(f"  dequantize_placeholders replaced {n}: weight now stride {mod.weight.stride()} contiguous {mod.weight.is_contiguous()}")
print(f"  forward after replacement: {tuple(model(torch.randn(2, 64, dtype=torch.bfloat16)).shape)}")
