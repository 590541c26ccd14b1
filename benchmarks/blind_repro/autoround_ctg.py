"""auto-round 0.16.1: CTG104 hadamard/inplace/hooks.py:524, CTG104 spinquant/preprocessor.py:1190,
CTG103 modeling/fused_moe/moe_experts_interface.py:721 and :723, CTG101
algorithms/transforms/awq/base.py:477.

The flagged modules are imported bare (the package __init__ needs psutil/transformers); the
auto_round helpers that moe_experts_interface imports at top level but the unfuse path does not
use are stubbed.
"""
import logging
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, report, stub_module  # noqa: E402

torch.manual_seed(0)
hooks = bare_import("auto-round", "auto_round.algorithms.transforms.hadamard.inplace.hooks")
rot = bare_import("auto-round", "auto_round.algorithms.transforms.spinquant.rotation_utils")


# --- CTG104 hooks.py:524: v_proj gets a per-head output-side Hadamard (apply.py:524 call) ---
def had_v_proj():
    head_dim, heads, hidden = 16, 4, 64
    v = nn.Linear(hidden, heads * head_dim, bias=False).to(torch.bfloat16)
    x = torch.randn(3, hidden, dtype=torch.bfloat16)
    H = hooks.matmul_hadU(torch.eye(head_dim, dtype=torch.float64))  # a head_dim Hadamard
    ref = (v.weight.double().t().reshape(-1, head_dim) @ H.T).reshape(hidden, -1).t()
    hooks.apply_exact_had_to_linear(v, had_dim=head_dim, output=True, use_fast_had=False,
                                    compute_device="cpu", had_matrix=H)
    w = v.weight
    y = F.linear(x, w)
    y_ref = F.linear(x, ref.to(torch.bfloat16).contiguous())
    # what later consumers do with the weight: group reshape for quantization, shard writer's
    # `.contiguous()` before safetensors.save_file
    groups = w.reshape(-1, 32)
    return (f"weight contiguous={w.is_contiguous()} stride={w.stride()}; F.linear equal to "
            f"row-major weight={torch.equal(y, y_ref)}; reshape(-1,32) ok {tuple(groups.shape)}; "
            f"view(-1) would raise but no consumer views it")


report("CTG104 hooks.py:524 weight.data = W_.to(dev, dtype)", had_v_proj)


# --- CTG104 preprocessor.py:1190: R1_inv = R1.t() moved, then only used as a matmul operand ---
def r1_inv_moved():
    R1 = torch.linalg.qr(torch.randn(64, 64, dtype=torch.float64))[0].float().contiguous()
    R1_inv_local = R1.t().to("cpu")
    q = nn.Linear(64, 32, bias=False)
    q2 = nn.Linear(64, 32, bias=False)
    q2.load_state_dict(q.state_dict())
    rot.rotate_in_channels_(q, R_in=R1_inv_local)
    rot.rotate_in_channels_(q2, R_in=R1_inv_local.contiguous())
    return (f"R1_inv_local contiguous={R1_inv_local.is_contiguous()} stride={R1_inv_local.stride()}; "
            f"rotated weight contiguous={q.weight.is_contiguous()}, equal to row-major R="
            f"{torch.equal(q.weight, q2.weight)}")


report("CTG104 preprocessor.py:1190 R1_inv.to(layer_device)", r1_inv_moved)

# --- CTG103 moe_experts_interface.py:721/723: chunked gate_up_proj / bias Parameters ---
log = logging.getLogger("ar")
log.setLevel(logging.ERROR)
stub_module("auto_round.envs")
stub_module("auto_round.modeling.fused_moe.fusion_spec",
            build_standard_moe_fusion_spec=lambda **k: None, register_moe_fusion_spec=lambda *a: None)
stub_module("auto_round.modeling.fused_moe.grouped_experts", GROUPED_LINEAR_IMPL="g",
            GROUPED_LINEAR_SLICED_IMPL="gs", grouped_linear_experts_forward=None)
stub_module("auto_round.modeling.fused_moe.utils", build_forced_routing=None,
            force_all_experts_routing_enabled=None)
stub_module("auto_round.utils", clear_memory=lambda *a, **k: None, logger=log)


class _Mon:
    def update(self, *a):
        pass

    def log_summary(self, *a):
        pass


stub_module("auto_round.utils.device", memory_monitor=_Mon())
moe = bare_import("auto-round", "auto_round.modeling.fused_moe.moe_experts_interface")


class Experts(nn.Module):  # transformers-style fused experts (gpt-oss layout: transposed, with bias)
    def __init__(self, E=4, H=16, I=24):
        super().__init__()
        self.is_transposed = True
        self.gate_up_proj = nn.Parameter(torch.randn(E, H, 2 * I))
        self.gate_up_proj_bias = nn.Parameter(torch.randn(E, 2 * I))
        self.down_proj = nn.Parameter(torch.randn(E, I, H))
        self.down_proj_bias = nn.Parameter(torch.randn(E, H))


def unfuse():
    m = Experts()
    x = torch.randn(5, 16)
    gu = m.gate_up_proj.detach().clone()
    gub = m.gate_up_proj_bias.detach().clone()
    split = gu.chunk(2, dim=2)[0]
    print("  chunk view that line 721 wraps: contiguous=", split.is_contiguous(), split.stride())
    ok = moe._unfuse_experts_weights_inplace(m, check_decorator=False,
                                            projection_names=["gate_up_proj", "down_proj"])
    lin = getattr(m, "1").gate_proj
    ref = x @ gu[1, :, :24] + gub[1, :24]
    conts = [p.is_contiguous() for p in m.parameters()]
    return (f"unfused={ok}; split Parameters left on module={hasattr(m, 'gate_proj')}/"
            f"{hasattr(m, 'gate_proj_bias')}; all {len(conts)} per-expert params contiguous="
            f"{all(conts)}; expert1 gate_proj matches fused={torch.allclose(lin(x), ref, atol=1e-5)}")


report("CTG103 moe_experts_interface.py:721/723 nn.Parameter(split)", unfuse)


# --- CTG101 awq/base.py:477: `feat.view(1, -1)` runs only under `if feat.ndim == 1` ---
def awq_feat_view():
    """A 1-D tensor of any stride views as (1, n): the view only adds a size-1 dim."""
    inputs = (torch.randn(12), torch.randn(12)[::3], torch.randn(4, 12)[:, 1],
              torch.randn(12)[2:9])
    return f"1-D feat.view(1, -1) works: {[tuple(x.view(1, -1).shape) for x in inputs]}"


report("CTG101 awq/base.py:477 feat.view(1, -1) under feat.ndim == 1", awq_feat_view)
