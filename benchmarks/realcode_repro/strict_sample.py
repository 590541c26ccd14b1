"""A sample of --strict findings (tensors of unknown layout) on the real-code corpus, run under
torch: the flagged views split a dim or add size-1 dims, the flagged buffers are fresh tensors.

Run: python benchmarks/realcode_repro/strict_sample.py
"""
import torch

from common import outcome


def split_of_a_cut_dim():
    # transformers timesfm2_5: past_values_padding[:, :seq_len].view(batch_size, -1, patch_len);
    # zaya: qk_states[..., q:].view(*hidden_shape) splits the cut last dim
    padding = torch.zeros(2, 40)[:, :32]
    qk = torch.randn(2, 5, 48)[..., 16:]
    return f"{tuple(padding.view(2, -1, 8).shape)}, {tuple(qk.view(2, 5, 4, 8).shape)}"


def size_one_dims_on_a_column():
    # transformers sapiens2: heatmap_coords[:, 0].view(-1, 1, 1)
    coords = torch.randn(7, 2)
    return tuple(coords[:, 0].view(-1, 1, 1).shape)


def same_shape_view_of_a_column():
    # transformers gemma4: input_ids (B, T) taken from a (B, T, k) tensor, viewed to (B, T)
    ids = torch.randint(0, 9, (2, 5, 3))[:, :, 2]
    return tuple(ids.view(torch.Size([2, 5])).shape)


def fresh_buffers():
    # inv_freq.clone(), torch.tensor(x), torch.log(A), a / a.sum(), gamma.to(device):
    # every one allocates a contiguous tensor
    inv_freq = 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))
    made = [inv_freq.clone(), torch.tensor([1, 2, 3]), torch.log(torch.arange(1, 5.0)),
            torch.tensor(0.99), torch.ones(4) / torch.ones(4).sum()]
    return f"all contiguous: {all(t.is_contiguous() for t in made)}"


def hiera_unroll():
    # transformers hiera HieraEmbeddings unroll: each round views, permutes, then reshapes; the
    # reshape of the permuted tensor copies, so the next round's view gets a contiguous tensor
    import math
    batch_size, hidden_size, size, schedule = 2, 4, [8, 8], [[2, 2], [2, 2]]
    hidden_states = torch.randn(batch_size, 64, hidden_size)
    seq_len = hidden_states.shape[1]
    mask_unit_shape = [1] * len(size)
    for strides in schedule:
        hidden_states = hidden_states.view(
            batch_size, *strides, seq_len // math.prod(strides), *mask_unit_shape, hidden_size)
        hidden_states = hidden_states.permute(0, 3, 1, 4, 2, 5, 6)
        for i in range(len(size)):
            mask_unit_shape[i] *= strides[i]
        hidden_states = hidden_states.reshape(batch_size, -1, *mask_unit_shape, hidden_size)
        seq_len = hidden_states.shape[1]
    return tuple(hidden_states.view(batch_size, seq_len, *mask_unit_shape, hidden_size).shape)


def split_heads_of_a_chunk():
    # transformers qwen3_next: torch.chunk(q_proj(x).view(B, T, -1, 2 * D), 2, dim=-1)[0]
    # .view(B, T, -1, D): the view keeps the cut last dim as it is
    q, _ = torch.chunk(torch.randn(2, 5, 24).view(2, 5, -1, 8), 2, dim=-1)
    return tuple(q.view(2, 5, -1, 4).shape)


if __name__ == "__main__":
    outcome("transformers hiera unroll (strict sample 2)", hiera_unroll)
    outcome("transformers qwen3_next split heads (strict sample 5)", split_heads_of_a_chunk)
    outcome("strict CTG101 split of a cut dim", split_of_a_cut_dim)
    outcome("strict CTG101 size-1 dims on a column", size_one_dims_on_a_column)
    outcome("strict CTG101 same-shape view", same_shape_view_of_a_column)
    outcome("strict CTG103 fresh buffers", fresh_buffers)
