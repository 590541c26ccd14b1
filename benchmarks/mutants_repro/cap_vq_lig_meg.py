"""Mutants drawn from captum, vector-quantize-pytorch, liger-kernel and megatron-core (tuning
corpus). Run: python benchmarks/mutants_repro/cap_vq_lig_meg.py [CASE ...]
"""
import torch
import torch.nn as nn

from common import raw, run_all


class SeriesModel(nn.Module):
    """A time-series classifier: (B, T, F) input transposed for a Conv1d, as such models do."""

    def __init__(self, features, classes):
        super().__init__()
        self.conv = nn.Conv1d(features, 8, 3, padding=1)
        self.head = nn.Linear(8, classes)

    def forward(self, x):
        return self.head(self.conv(x.transpose(1, 2)).mean(-1))


class PatchModel(nn.Module):
    """A ViT-style patch embedding: conv, then flatten(2).transpose(1, 2) (timm's PatchEmbed)."""

    def __init__(self, classes):
        super().__init__()
        self.proj = nn.Conv2d(3, 16, 4, 4)
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        return self.head(self.proj(x).flatten(2).transpose(1, 2).mean(1))


def _scaled(inputs, n_steps):
    # captum's IntegratedGradients: the scaled inputs of every step, concatenated, made leaves
    alphas = torch.linspace(0, 1, n_steps)
    return torch.cat([a * inputs for a in alphas]).requires_grad_()


def cap_ig_grads(mutant, model, shape, n_steps):
    # captum/attr/_core/integrated_gradients.py _attribute: grads = torch.autograd.grad of the
    # target outputs with respect to the scaled inputs
    net = SeriesModel(shape[-1], 3) if model == "series" else PatchModel(3)
    scaled = _scaled(torch.randn(*shape), n_steps)
    (grad,) = torch.autograd.grad(net(scaled)[:, 0].sum(), scaled)
    return (grad if mutant else grad.contiguous()).view(n_steps, -1)


def patch_layer_grad(n_steps, batch):
    """The gradient with respect to a layer's output (compute_layer_gradients_and_eval), here the
    patch projection of a ViT-style model, on captum's scaled inputs."""
    net = PatchModel(3)
    out = net.proj(_scaled(torch.randn(batch, 3, 16, 16), n_steps))
    logits = net.head(out.flatten(2).transpose(1, 2).mean(1))
    return torch.autograd.grad(logits[:, 0].sum(), out)[0]


def cap_internal_influence(mutant, n_steps, batch):
    # captum/attr/_core/layer/internal_influence.py: layer_gradients
    layer_grad = patch_layer_grad(n_steps, batch)
    return (layer_grad if mutant else layer_grad.contiguous()).view(n_steps, -1)


def cap_lrp_output(mutant, batch, classes, target):
    # captum/attr/_core/layer/layer_lrp.py _get_single_output_relevance: output is the model's
    # output with the target selected (_select_targets: output[:, t] or a gather)
    logits = torch.randn(batch, classes)
    output = logits[:, target] if isinstance(target, int) else torch.gather(
        logits, 1, torch.tensor(target).view(-1, 1)).squeeze(-1)
    relevance = torch.randn(batch, 4, 5)
    shape = (-1,) + (1,) * (relevance.dim() - 1)
    return relevance * (output.view(shape) if mutant else output.reshape(shape))


def cap_select_targets(mutant, batch, classes):
    # captum/_utils/common.py _select_targets: a 1-D target tensor, e.g. a column of the labels
    output = torch.randn(batch, classes)
    labels = torch.randint(0, classes, (batch, 2))
    picked = []
    for target in (labels[:, 0], torch.randint(0, classes, (batch,))):
        index = target.view(len(output), 1) if mutant else target.reshape(len(output), 1)
        picked.append(torch.gather(output, 1, index).squeeze(-1))
    return picked


def _fsp(z, dim, levels=8):
    # vector_quantize_pytorch/finite_scalar_perturbation.py forward, with project_in/out the
    # nn.Linear layers it builds when dim differs from the codebook dim
    act_z = torch.tanh(z) * 0.5 + 0.5
    level_indices = (act_z.clamp_max(1.0 - 1e-6) * levels).floor()
    q_act_z = (level_indices + 0.5) / levels
    q_z = (q_act_z - 0.5) / 0.28867513459481287
    basis = levels ** torch.arange(z.shape[-1])
    indices = (level_indices * basis).sum(dim=-1).to(torch.int32)
    return level_indices, indices, nn.Linear(z.shape[-1], dim)(q_z)


def vq_fsp(mutant, which, shape, channel_first):
    dim = shape[1] if channel_first else shape[-1]
    z = torch.randn(*shape)
    if channel_first:
        z = z.movedim(1, -1)  # rearrange(z, "b d ... -> b ... d")
    z_shape = z.shape
    reshape = (lambda t, s: t.view(s)) if mutant else (lambda t, s: t.reshape(s))
    z = reshape(z, (-1, dim)) if which == "z" else z.reshape(-1, dim)
    level_indices, indices, q_z = _fsp(nn.Linear(dim, 4)(z), dim)
    pick = {"level": lambda: reshape(level_indices, z_shape[:-1] + (-1,)),
            "indices": lambda: reshape(indices, z_shape[:-1]),
            "q_z": lambda: reshape(q_z, z_shape), "z": lambda: q_z}
    return pick[which]()


def lig_ascend_embedding_bwd(mutant, B, T, D, transposed_use):
    # liger_kernel/ops/backends/_ascend/ops/embedding.py embedding_backward: grad_output is the
    # gradient of the embedding output; a model that uses it time-major transposes it
    emb = nn.Embedding(50, D)
    out = emb(torch.randint(0, 50, (B, T)))
    use = out.transpose(0, 1) if transposed_use else out
    (grad_output,) = torch.autograd.grad((use * torch.randn(use.shape)).sum(), out)
    g = (grad_output if mutant else grad_output.contiguous()).view(-1, D)
    return raw(g)  # the Triton kernel reads it by pointer


def lig_cutile_rms_norm(mutant, shape):
    # liger_kernel/ops/cutile/ops/rms_norm.py rms_norm_forward: X is the hidden states that
    # LigerRMSNorm gets from a transformers model (batch-first, contiguous)
    X = nn.Linear(8, shape[-1])(torch.randn(*shape[:-1], 8))
    x_2d = (X if mutant else X.contiguous()).view(-1, shape[-1])
    return raw(x_2d)  # launched on the cuTile kernel by pointer


def meg_broadcast_data(mutant, batch, seq):
    # megatron/core/tensor_parallel/data.py broadcast_data: data is the collated batch of the
    # data iterator (pretrain_gpt get_batch); .cuda() keeps strides, so it is left out here
    data = {"text": torch.randint(0, 100, (batch, seq + 1)),
            "loss_mask": torch.ones(batch, seq)}
    keys = ["text"]
    return torch.cat([(data[k] if mutant else data[k].contiguous()).view(-1) for k in keys])


class _Rotary(nn.Module):
    pass


def meg_yarn_sin_cache(mutant, seq_len, dim):
    # megatron/core/models/common/embeddings/yarn_rotary_pos_embedding.py _set_cos_sin_cache:
    # emb is forward()'s cat((freqs, freqs), -1)[:, None, None, :]; the buffer is read as
    # sin_cached[:seq_len] by the rotary application
    freqs = torch.outer(torch.arange(seq_len).float(), torch.rand(dim // 2))
    emb = torch.cat((freqs, freqs), dim=-1)[:, None, None, :]
    module = _Rotary()
    buf = (emb.sin() * 1.1).to(torch.bfloat16)
    module.register_buffer("sin_cached", buf if mutant else buf.contiguous(), persistent=False)
    return module.sin_cached[:seq_len].to(torch.float32)


def meg_mla_thd(mutant, t, heads, head_dim, path):
    # megatron/core/transformer/multi_latent_attention.py: core_attn_out in the thd format is the
    # core attention's (t, h * d) output, or the flash-decode output rearranged 's b h d ->
    # s b (h d)'
    if path == "core":
        core_attn_out = torch.randn(t, heads * head_dim)
    else:
        core_attn_out = torch.randn(t, 1, heads, head_dim).flatten(2)
    shape = (core_attn_out.size(0), 1, -1)
    return core_attn_out.view(shape) if mutant else core_attn_out.reshape(shape)


def meg_batch_invariant_mean(mutant, shape, dim, transposed):
    # megatron/core/transformer/custom_layers/batch_invariant_kernels.py mean_dim, registered for
    # aten::mean.dim: any tensor that a model averages, e.g. a transposed attention map
    x = torch.randn(*shape)
    x = x.transpose(0, 1) if transposed else x
    s = list(x.shape)
    M = int(torch.tensor(s[:dim]).prod()) if dim else 1
    K = int(torch.tensor(s[dim + 1:]).prod()) if dim + 1 < len(s) else 1
    x3 = x.view(M, s[dim], K) if mutant else x.reshape(M, s[dim], K)
    return x3.sum(1)  # the kernel reads input_3d through its strides


CASES = {
    "cap_ig_grads": (cap_ig_grads, [dict(model="patch", shape=(2, 3, 16, 16), n_steps=5),
                                    dict(model="series", shape=(2, 12, 4), n_steps=5)]),
    "cap_internal_influence": (cap_internal_influence, [dict(n_steps=5, batch=2)]),
    "cap_lrp_output": (cap_lrp_output, [dict(batch=3, classes=4, target=1),
                                        dict(batch=3, classes=4, target=[0, 2, 1])]),
    "cap_select_targets": (cap_select_targets, [dict(batch=3, classes=4)]),
    "vq_fsp_q_z": (lambda mutant, **kw: vq_fsp(mutant, "q_z", **kw), [
        dict(shape=(2, 10, 6), channel_first=False), dict(shape=(2, 6, 4, 4), channel_first=True)]),
    "vq_fsp_level_indices": (lambda mutant, **kw: vq_fsp(mutant, "level", **kw), [
        dict(shape=(2, 10, 6), channel_first=False), dict(shape=(2, 6, 4, 4), channel_first=True)]),
    "vq_fsp_indices": (lambda mutant, **kw: vq_fsp(mutant, "indices", **kw), [
        dict(shape=(2, 10, 6), channel_first=False), dict(shape=(2, 6, 4, 4), channel_first=True)]),
    "vq_fsp_z": (lambda mutant, **kw: vq_fsp(mutant, "z", **kw), [
        dict(shape=(2, 10, 6), channel_first=False), dict(shape=(2, 6, 4, 4), channel_first=True)]),
    "lig_ascend_embedding_bwd": (lig_ascend_embedding_bwd, [
        dict(B=2, T=5, D=8, transposed_use=False), dict(B=2, T=5, D=8, transposed_use=True)]),
    "lig_cutile_rms_norm": (lig_cutile_rms_norm, [dict(shape=(2, 7, 64)), dict(shape=(5, 32))]),
    "meg_broadcast_data": (meg_broadcast_data, [dict(batch=2, seq=16), dict(batch=1, seq=4)]),
    "meg_yarn_sin_cache": (meg_yarn_sin_cache, [dict(seq_len=32, dim=16)]),
    "meg_mla_thd": (meg_mla_thd, [dict(t=7, heads=4, head_dim=8, path="core"),
                                  dict(t=7, heads=4, head_dim=8, path="decode")]),
    "meg_batch_invariant_mean": (meg_batch_invariant_mean, [
        dict(shape=(4, 3, 5), dim=2, transposed=False),
        dict(shape=(4, 3, 5), dim=2, transposed=True)]),
}

if __name__ == "__main__":
    run_all(CASES)
