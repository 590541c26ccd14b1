"""verl 0.9.1: CTG114 verl/utils/kernel/linear_cross_entropy.py:101 and :102 (dlogprobs /
dentropy passed to kernels.efficient_entropy_backward), CTG104
verl/utils/megatron/router_replay_utils.py:326 (stack(...).permute(1, 0, 2).to(device_name)),
CTG103 verl/utils/modelopt/vllm_modelopt_patch.py:424 (Parameter(w13_weight_scale_2[:, 0])).

linear_cross_entropy.py is imported bare; its Triton module `kernels` cannot run without CUDA
and is replaced by a CPU stand-in: forward = the torch reference (logits -> log_softmax gather,
entropy); backward = the precondition assert copied from kernels.py:1553
(`assert dlogprobs.is_contiguous() and dentropy.is_contiguous()`) followed by autograd of the
reference. router_replay_utils needs Megatron and vllm_modelopt_patch needs vLLM: their flagged
lines (and vLLM's prepare_nvfp4_moe_layer_for_marlin handling of the global scale) are repeated.
"""
import sys
import types
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, report, stub_module  # noqa: E402

torch.manual_seed(0)
if not torch.cuda.is_available():  # the autograd Function wraps its body in torch.cuda.nvtx.range
    import contextlib
    torch.cuda.nvtx.range = lambda *a, **k: contextlib.nullcontext()


def _ref(hidden, weight, labels, temperature):
    logits = (hidden.float() @ weight.float().T) / temperature
    logp = torch.log_softmax(logits, -1)
    return logp.gather(-1, labels[:, None]).squeeze(-1), -(logp.exp() * logp).sum(-1)


def fwd(hidden, weight, labels, reduction, temperature, group):
    lp, ent = _ref(hidden, weight, labels, temperature)
    z = torch.zeros_like(lp)
    return lp, ent, z, z, z


def bwd(dlogprobs, dentropy, hidden, weight, labels, maximum, acc, entropy_b, reduction,
        fp32_grad, temperature, group):
    assert dlogprobs.is_contiguous() and dentropy.is_contiguous(), "kernels.py:1553 precondition"
    with torch.enable_grad():
        h, w = hidden.detach().requires_grad_(), weight.detach().requires_grad_()
        lp, ent = _ref(h, w, labels, temperature)
        return torch.autograd.grad((lp, ent), (h, w), (dlogprobs, dentropy))


kern = types.SimpleNamespace(get_entropy_reduction_enum_number=lambda r: {"none": 0, "sum": 1, "mean": 2}[r],
                             efficient_entropy_forward=fwd, efficient_entropy_backward=bwd)
lce = bare_import("verl", "verl.utils.kernel.linear_cross_entropy")
sys.modules["verl.utils.kernel.kernels"] = kern
sys.modules["verl.utils.kernel"].kernels = kern


def run_loss(loss_fn):
    hidden = torch.randn(1, 12, 128, requires_grad=True)
    weight = torch.randn(300, 128, requires_grad=True)
    labels = torch.randint(0, 300, (1, 12))
    seen = {}
    orig = kern.efficient_entropy_backward

    def spy(dl, de, *a):
        seen["strides"] = (dl.stride(), de.stride())
        return orig(dl, de, *a)

    kern.efficient_entropy_backward = spy
    try:
        logprobs, entropy = lce.linear_cross_entropy(hidden, weight, labels, 1.0, "none")
        loss_fn(logprobs, entropy).backward()
        return f"backward ok, grad strides (dlogprobs, dentropy)={seen['strides']}"
    finally:
        kern.efficient_entropy_backward = orig
        if "strides" in seen:
            print(f"  (grad strides reaching the kernel: {seen['strides']})")


mask = (torch.arange(12) % 3 != 0).float()
report("CTG114 linear_cross_entropy.py:101/102 verl-style masked token-mean PPO/entropy loss",
       lambda: run_loss(lambda lp, e: -((lp * mask).sum() / mask.sum()) - 0.01 * (e * mask).sum() / mask.sum()))
report("CTG114 linear_cross_entropy.py:101 NLL loss -logprobs.sum()",
       lambda: run_loss(lambda lp, e: -lp.sum()))
report("CTG114 linear_cross_entropy.py:102 entropy bonus  -logprobs.mean() - 0.01 * entropy.sum()",
       lambda: run_loss(lambda lp, e: -lp.mean() - 0.01 * e.sum()))


def router_replay():
    layers_topk_idx = [torch.randint(0, 64, (37, 8)).to(torch.int16) for _ in range(6)]  # per-layer (bs, topk)
    t = torch.stack(layers_topk_idx).permute(1, 0, 2).to("cpu")
    s = t.stride()
    try:
        t.view(torch.uint8)
        bare = "ok"
    except RuntimeError as e:
        bare = "RAISES " + str(e).splitlines()[0][:50]
    u = t.contiguous().view(torch.uint8)  # router_replay_utils.py:327, the next line
    back = u.view(torch.int16)
    return (f"moved tensor stride={s} contiguous={t.is_contiguous()}; the next line (327) calls "
            f".contiguous() before view(uint8) and the gather (view(uint8) alone: {bare}); the round-trip equals the routes={torch.equal(back, torch.stack(layers_topk_idx).permute(1, 0, 2))}")


report("CTG104 router_replay_utils.py:326 .permute(1, 0, 2).to(device_name)", router_replay)


def nvfp4_marlin_process_global_scale(global_scale):  # vLLM marlin_utils_fp4 (extracted)
    assert global_scale.dtype in [torch.half, torch.bfloat16]
    target_exponent = 5 if global_scale.dtype == torch.half else 8
    exponent_bias = 2 ** (target_exponent - 1) - 2 ** (2 - 1)
    return global_scale * (2.0 ** (exponent_bias - 7))


def modelopt_scale():
    from torch.nn import Parameter
    layer = torch.nn.Module()
    layer.w13_weight_scale_2 = Parameter(torch.rand(8, 2), requires_grad=False)  # (E, 2): gate/up
    layer.params_dtype = torch.bfloat16
    # vllm_modelopt_patch.py:421-424
    w13_weight_scale_2 = layer.w13_weight_scale_2.data
    if w13_weight_scale_2.dim() == 2:
        w13_weight_scale_2 = w13_weight_scale_2[:, 0]
    layer.w13_weight_scale_2 = Parameter(w13_weight_scale_2, requires_grad=False)
    p = layer.w13_weight_scale_2
    info = f"Parameter stride={p.stride()} contiguous={p.is_contiguous()}"
    res = []
    for dtype in (torch.bfloat16, torch.float32):
        # vLLM prepare_nvfp4_moe_layer_for_marlin.premute_scales: g_scales.to(param_dtype) then process
        g = layer.w13_weight_scale_2.data.to(dtype)
        g = nvfp4_marlin_process_global_scale(g.to(torch.bfloat16) if dtype == torch.float32 else g)
        res.append(g.is_contiguous())
    # _modelopt_moe_marlin_convert (first call) then replaces the attribute with the processed scale
    layer.w13_weight_scale_2 = Parameter(g, requires_grad=False)
    return (f"{info}; processed global scale contiguous={res}; final layer.w13_weight_scale_2 contiguous="
            f"{layer.w13_weight_scale_2.is_contiguous()} (the strided Parameter is replaced before any kernel)")


report("CTG103 vllm_modelopt_patch.py:424 Parameter(w13_weight_scale_2[:, 0])", modelopt_scale)
