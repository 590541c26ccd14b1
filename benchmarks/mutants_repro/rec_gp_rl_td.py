"""Mutants drawn from torchrec, gpytorch, torchrl and tensordict (tuning corpus).
Run: python benchmarks/mutants_repro/rec_gp_rl_td.py [CASE ...]
"""
import torch
import torch.nn.functional as F

from common import raw, run_all


def rec_recat_grad(mutant, B, features_per_rank, dim):
    # torchrec/distributed/comm_ops.py _recat_pooled_embedding_grad_out: grad_output is the
    # (B, sum(F_r * D)) gradient of the pooled embeddings, split per rank along dim 1
    grad_output = torch.randn(B, sum(features_per_rank) * dim)
    parts = grad_output.split([f * dim for f in features_per_rank], dim=1)
    return torch.cat([(g if mutant else g.contiguous()).view(-1) for g in parts], dim=0)


def rec_tpu_unstack(mutant, num_sc, num_features, batch, dim):
    # torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py _unstack_activation:
    # out is the [batch * num_features, D] result of the sparse-dense matmul
    out = torch.randn(batch * num_features, 8) @ torch.randn(8, dim)
    per_sc = batch // num_sc
    return ((out if mutant else out.contiguous()).view(num_sc, num_features, per_sc, -1)
            .transpose(0, 1).reshape(num_features, batch, -1))


def rec_pallas_offsets(mutant, num_features, batch):
    # torchrec/distributed/batched_embedding_kernel.py (Pallas batched EBC): offsets from lengths
    lengths = torch.randint(0, 4, (num_features * batch,))
    local_ends = torch.cumsum(lengths.view(num_features, -1), dim=1).to(lengths.dtype)
    zero = lengths.new_zeros(1)
    bases = torch.cat([zero, torch.cumsum(local_ends[:, -1], dim=0).to(lengths.dtype)[:-1]])
    global_ends = local_ends + bases.unsqueeze(1)
    return torch.cat([zero, global_ends.view(-1) if mutant else global_ends.reshape(-1)])


def rec_kjt_pool_lengths(mutant, num_features, batch):
    # torchrec/distributed/keyed_jagged_tensor_pool.py and torchrec/modules/
    # keyed_jagged_tensor_pool.py _update_preproc: the 1-D lengths of KeyedJaggedTensor.permute
    # (a gathered, fresh tensor)
    lengths = torch.randint(0, 5, (num_features * batch,))
    perm = torch.randperm(num_features)
    lengths = lengths.view(num_features, batch)[perm].flatten()
    x = lengths.view(num_features, -1) if mutant else lengths.reshape(num_features, -1)
    return x.max(dim=1)


def gp_added_loss_noise(mutant, batch, n, tasks):
    # gpytorch/mlls/inducing_point_kernel_added_loss_term.py: noise_diag is
    # likelihood._shaped_noise_covar(shape).diagonal(-1, -2) of a MultitaskGaussianLikelihood;
    # measured with gpytorch 1.15.2 / linear_operator 0.6.1 (rank 0 and 1, batched or not): a
    # contiguous (*batch, n * tasks) tensor
    noise_diag = torch.rand(*batch, n * tasks) + 0.1
    shape = (*batch, n)
    return noise_diag.view(*shape, -1) if mutant else noise_diag.reshape(*shape, -1)


def gp_grid_interp_cat(mutant, n1, n2, d, active):
    # gpytorch/kernels/grid_interpolation_kernel.py forward: x1, x2 as Kernel.__call__ passes
    # them (training inputs; index_select on active_dims when set)
    x1, x2 = torch.randn(n1, d + 1), torch.randn(n2, d + 1)
    if active:
        x1, x2 = (x.index_select(-1, torch.arange(d)) for x in (x1, x2))
    else:
        x1, x2 = x1[:, :d].contiguous(), x2[:, :d].contiguous()
    f = (lambda x: x.view(-1, d)) if mutant else (lambda x: x.reshape(-1, d))
    return torch.cat([f(x1), f(x2)])


def gp_multitask_noise(mutant, batch, n, tasks):
    # gpytorch/likelihoods/multitask_gaussian_likelihood.py forward (noise as above)
    function_samples = torch.randn(*batch, n, tasks)
    noise = torch.rand(*batch, n * tasks) + 0.1
    shape = (*noise.shape[:-1], *function_samples.shape[-2:])
    return noise.view(*shape) if mutant else noise.reshape(*shape)


def gp_observed_mask(mutant, n, tasks):
    # gpytorch/settings.py observation_nan_policy._get_observed: observations = train_y
    observations = torch.randn(n, tasks)
    observations[0, 0] = float("nan")
    x = observations.view(-1, tasks) if mutant else observations.reshape(-1, tasks)
    return ~torch.any(torch.isnan(x), dim=0)


def rl_bwd_hidden_norm(mutant, hidden, pad):
    # torchrl/modules/models/_dreamer_v3_block_gru_triton.py backward: F.pad of the norm weight,
    # passed by pointer to _block_gru_bwd_kernel (read here as dense memory)
    p = F.pad(torch.randn(hidden), (0, pad))
    return raw(p if mutant else p.contiguous())


def rl_is_init(mutant, batch, time, with_last_dim):
    # torchrl/modules/models/_dreamer_v3_block_gru_triton.py dreamer_v3_block_gru_triton: is_init
    # as DreamerV3BlockGRU.forward hands it on (zeros, or the (B, T, 1) entry squeezed)
    if with_last_dim:
        is_init = (torch.rand(batch, time, 1) > 0.8).squeeze(-1)
    else:
        is_init = torch.zeros(batch, time, dtype=torch.bool)
    return raw(is_init if mutant else is_init.contiguous())


def rl_block_gru_belief(mutant, batch, belief_dim, blocks):
    # torchrl/modules/models/model_based.py _dreamer_v3_block_gru_update: belief is the previous
    # step's update * candidate + (1 - update) * belief, or the zero initial state
    u, c, b = (torch.rand(batch, belief_dim) for _ in range(3))
    belief = u * c + (1 - u) * b
    shape = (*belief.shape[:-1], blocks, belief_dim // blocks)
    return belief.view(*shape) if mutant else belief.reshape(*shape)


def rl_block_linear_gates(mutant, batch, blocks, block_in, block_size, bias):
    # torchrl/modules/models/model_based.py: _dreamer_v3_block_linear_compute's result
    value = torch.randn(batch, blocks * block_in)
    weight = torch.randn(blocks, block_in, 3 * block_size)
    v = value.reshape(-1, blocks, block_in).transpose(0, 1)
    v = torch.bmm(v, weight).transpose(0, 1).reshape(batch, blocks * 3 * block_size)
    if bias:
        v = v + torch.randn(blocks * 3 * block_size)
    shape = (batch, blocks, 3, block_size)
    return v.view(*shape) if mutant else v.reshape(*shape)


def _leaves():
    # a tensordict's leaves as users build them: fresh, sliced, transposed, expanded
    base = torch.randn(4, 6)
    return [base, base[:, :3], base.t(), torch.randn(6).expand(4, 6), torch.tensor(3.0)]


def td_consolidate_chunk(mutant, which):
    # tensordict/_base/serialization.py _consolidate, _copy_chunk: values are the leaves
    v = _leaves()[which]
    flat = (v if mutant else v.contiguous()).view(-1)
    if flat.stride(-1) != 1:
        flat = flat.clone(memory_format=torch.contiguous_format)
    return flat.view(torch.uint8)


def td_ucxx_send(mutant, which):
    # tensordict/_ucxx.py: each CPU leaf is sent as t_contig.view(-1).view(torch.uint8)
    t = _leaves()[which]
    t_contig = t if mutant else t.contiguous()
    return t_contig.view(-1).view(torch.uint8)


def td_bucket_flat(mutant, sizes):
    # tensordict/_base/distributed.py: buckets of several leaves hold contiguous strided leaves
    # only (the others get a bucket of their own)
    tensors = [torch.randn(s) for s in sizes]
    f = (lambda t: t.view(-1)) if mutant else (lambda t: t.reshape(-1))
    return torch.cat([f(t) for t in tensors])


def td_flat_views(mutant, which):
    # tensordict/_base/serialization.py _consolidate: non-contiguous or offset leaves are cloned
    v = _leaves()[which]
    stride = v.stride()
    if (stride and stride[-1] != 1) or v.storage_offset() or not v.is_contiguous():
        v = v.clone(memory_format=torch.contiguous_format)
    return (v.view(-1) if mutant else v.reshape(-1)).view(torch.uint8)


LEAVES = [dict(which=i) for i in range(5)]
CASES = {
    "rec_recat_grad": (rec_recat_grad, [dict(B=4, features_per_rank=[2], dim=8),
                                        dict(B=4, features_per_rank=[2, 3], dim=8)]),
    "rec_tpu_unstack": (rec_tpu_unstack, [dict(num_sc=4, num_features=3, batch=8, dim=16)]),
    "rec_pallas_offsets": (rec_pallas_offsets, [dict(num_features=3, batch=4),
                                                dict(num_features=1, batch=2)]),
    "rec_kjt_pool_lengths": (rec_kjt_pool_lengths, [dict(num_features=3, batch=4)]),
    "gp_added_loss_noise": (gp_added_loss_noise, [dict(batch=(), n=5, tasks=3),
                                                  dict(batch=(2,), n=5, tasks=3)]),
    "gp_grid_interp_cat": (gp_grid_interp_cat, [dict(n1=10, n2=6, d=2, active=False),
                                                dict(n1=10, n2=6, d=2, active=True)]),
    "gp_multitask_noise": (gp_multitask_noise, [dict(batch=(), n=5, tasks=3),
                                                dict(batch=(4,), n=5, tasks=2)]),
    "gp_observed_mask": (gp_observed_mask, [dict(n=6, tasks=2), dict(n=1, tasks=4)]),
    "rl_bwd_hidden_norm": (rl_bwd_hidden_norm, [dict(hidden=48, pad=16), dict(hidden=64, pad=0)]),
    "rl_is_init": (rl_is_init, [dict(batch=4, time=8, with_last_dim=False),
                                dict(batch=4, time=8, with_last_dim=True)]),
    "rl_block_gru_belief": (rl_block_gru_belief, [dict(batch=4, belief_dim=64, blocks=8)]),
    "rl_block_linear_gates": (rl_block_linear_gates, [
        dict(batch=4, blocks=8, block_in=8, block_size=8, bias=True),
        dict(batch=1, blocks=2, block_in=4, block_size=4, bias=False)]),
    "td_consolidate_chunk": (td_consolidate_chunk, LEAVES),
    "td_ucxx_send": (td_ucxx_send, LEAVES),
    "td_bucket_flat": (td_bucket_flat, [dict(sizes=[(4, 6), (3,), ()])]),
    "td_flat_views": (td_flat_views, LEAVES),
}

if __name__ == "__main__":
    run_all(CASES)
