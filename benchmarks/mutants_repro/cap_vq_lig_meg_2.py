"""Mutants of the second draw from captum, vector-quantize-pytorch, liger-kernel and
megatron-core (tuning corpus). Run: python benchmarks/mutants_repro/cap_vq_lig_meg_2.py [CASE ...]
"""
import torch

from cap_vq_lig_meg import PatchModel, SeriesModel, _scaled, patch_layer_grad
from common import raw, reshaped, run_all


def cap_neuron_conductance(mutant, model, shape, n_steps):
    # captum/attr/_core/neuron/neuron_conductance.py: input_grad * mid_grads.reshape(...), the
    # input gradients as torch.autograd.grad returns them
    net = SeriesModel(shape[-1], 3) if model == "series" else PatchModel(3)
    scaled = _scaled(torch.randn(*shape), n_steps)
    (input_grad,) = torch.autograd.grad(net(scaled)[:, 0].sum(), scaled)
    mid_grads = torch.randn(scaled.shape[0])
    g = input_grad * mid_grads.reshape((scaled.shape[0],) + (1,) * (input_grad.dim() - 1))
    return (g if mutant else g.contiguous()).view(n_steps, -1)


def cap_conductance_reference(mutant, n_steps, batch):
    # captum/testing/attr/helpers/conductance_reference.py: mid_layer_gradients, the gradients
    # with respect to a layer's output
    mid = patch_layer_grad(n_steps, batch)
    return (mid if mutant else mid.contiguous()).view(n_steps, -1)


def cap_occlusion_ablated(mutant, layout, k, shape):
    # captum/attr/_core/occlusion.py _construct_ablated_input: the input, repeated once per
    # ablated feature, clone()d (which keeps its strides)
    x = torch.randn(*shape)
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    input_tensor = torch.cat([x] * k)
    return reshaped(mutant)(input_tensor.clone(), (k, -1) + tuple(input_tensor.shape[1:]))


def vq_append_dims(mutant, shape, ndims, transposed):
    # vector_quantize_pytorch/vector_quantize_pytorch.py append_dims_to
    t = torch.randn(*shape)
    t = t.transpose(0, -1) if transposed else t
    return reshaped(mutant)(t, *t.shape, *((1,) * (ndims - t.ndim)))


def vq_beam_losses(mutant, input_shape):
    # vector_quantize_pytorch/residual_vq.py: all_losses = torch.empty((0,)) on beam search
    all_losses = torch.empty((0,), dtype=torch.float32)
    return reshaped(mutant)(all_losses, *input_shape[:-1], 1, 0)


def lig_grpo_seq(mutant, which, B, L):
    # liger_kernel/ops/backends/_ascend/ops/grpo_loss.py (sequence-level importance sampling):
    # coef_1 and is_clipped_seq, passed by pointer to _grpo_loss_fwd_kernel_seq
    mask = (torch.rand(B, L) > 0.2).float()
    log_ratio = torch.randn(B, L) * 0.1
    coef_1 = torch.exp((log_ratio * mask).sum(-1) / mask.sum(-1).clamp(min=1.0))
    advantages = torch.randn(B)
    clipped = ((coef_1 < 0.8) & (advantages < 0)) | ((coef_1 > 1.2) & (advantages > 0))
    t = coef_1 if which == "coef" else clipped.float()
    return raw(t if mutant else t.contiguous())


def meg_mla_rope_bwd(mutant, s, b, heads, dk_dim):
    # megatron/core/fusions/fused_mla_yarn_rope_apply.py backward: dk is the gradient of the
    # rotated key, which megatron's DotProductAttention reshapes to (s, b * h, d) and uses
    # transposed in a baddbmm
    key = torch.randn(s, b, heads, dk_dim, requires_grad=True)
    query = torch.randn(s, b * heads, dk_dim)
    k2 = key.reshape(s, b * heads, dk_dim)
    scores = torch.bmm(query.transpose(0, 1), k2.transpose(0, 1).transpose(1, 2))
    (dk,) = torch.autograd.grad((scores * torch.randn(scores.shape)).sum(), key)
    return (dk if mutant else dk.contiguous()).view(-1, heads, dk_dim)


def meg_mla_rope_bwd_dv(mutant, s, b, heads, v_dim):
    # the same backward's dv: the value gradient of context = bmm(probs, value.transpose(0, 1))
    # in megatron's DotProductAttention, value reshaped to (s, b * h, d)
    value = torch.randn(s, b, heads, v_dim, requires_grad=True)
    probs = torch.randn(b * heads, s, s).softmax(-1)
    context = torch.bmm(probs, value.reshape(s, b * heads, v_dim).transpose(0, 1))
    (dv,) = torch.autograd.grad((context * torch.randn(context.shape)).sum(), value)
    return (dv if mutant else dv.contiguous()).view(-1, heads, v_dim)


def meg_gdn_g(mutant, B, L, H, chunk):
    # megatron/core/ssm/gated_delta_net.py torch_chunk_gated_delta_rule: g is
    # x.transpose(1, 2).contiguous().to(float32), padded to a multiple of the chunk size
    g = torch.randn(B, L, H).transpose(1, 2).contiguous().to(torch.float32)
    g = torch.nn.functional.pad(g, (0, (chunk - L % chunk) % chunk))
    return reshaped(mutant)(g, g.shape[0], g.shape[1], -1, chunk)


def meg_trtllm_qkv_bias(mutant, heads, kv_heads, head_size):
    # megatron/core/export/trtllm/.../single_device_trtllm_model_weights_converter.py: the qkv
    # bias of the state dict, 1-D
    val = torch.nn.Parameter(torch.randn((heads + 2 * kv_heads) * head_size)).data
    return reshaped(mutant)(val, kv_heads, heads // kv_heads + 2, head_size)


CASES = {
    "cap_neuron_conductance": (cap_neuron_conductance, [
        dict(model="patch", shape=(2, 3, 16, 16), n_steps=4),
        dict(model="series", shape=(2, 12, 4), n_steps=4)]),
    "cap_conductance_reference": (cap_conductance_reference, [dict(n_steps=4, batch=2)]),
    "cap_occlusion_ablated": (cap_occlusion_ablated, [
        dict(layout="contiguous", k=3, shape=(1, 3, 8, 8)),
        dict(layout="channels_last", k=3, shape=(1, 3, 8, 8))]),
    "vq_append_dims": (vq_append_dims, [dict(shape=(4, 3), ndims=4, transposed=False),
                                        dict(shape=(4, 3), ndims=4, transposed=True)]),
    "vq_beam_losses": (vq_beam_losses, [dict(input_shape=(2, 10, 8))]),
    "lig_grpo_coef_1_for_loss": (lambda mutant, **kw: lig_grpo_seq(mutant, "coef", **kw),
                                 [dict(B=4, L=12)]),
    "lig_grpo_is_clipped_seq": (lambda mutant, **kw: lig_grpo_seq(mutant, "clipped", **kw),
                                [dict(B=4, L=12)]),
    "meg_mla_rope_bwd": (meg_mla_rope_bwd, [dict(s=6, b=2, heads=4, dk_dim=8)]),
    "meg_mla_rope_bwd_dv": (meg_mla_rope_bwd_dv, [dict(s=6, b=2, heads=4, v_dim=8)]),
    "meg_gdn_g": (meg_gdn_g, [dict(B=2, L=50, H=4, chunk=64), dict(B=1, L=130, H=2, chunk=64)]),
    "meg_trtllm_qkv_bias": (meg_trtllm_qkv_bias, [dict(heads=8, kv_heads=2, head_size=16)]),
}

if __name__ == "__main__":
    run_all(CASES)
