"""openrlhf 0.11.2: CTG102 openrlhf/models/ring_attn_utils.py:97 (output_tensors.append(tensor)).

ring_attn_utils.py is imported bare; flash_attn is stubbed with minimal torch versions of
unpad_input / index_first_axis (what they compute: rows of the flattened batch where the mask is
set), and torch.distributed's rank/world size are replaced by a fake ring of 4 ranks.
"""
import sys
import types
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE, bare_import, report, stub_module  # noqa: E402

sys.path.append(str(CACHE / "deps"))
from einops import rearrange  # noqa: E402

torch.manual_seed(0)


def index_first_axis(x, indices):  # flash_attn.bert_padding.index_first_axis (forward only)
    return x[indices]


def unpad_input(hidden, mask):  # flash_attn.bert_padding.unpad_input (first three outputs)
    seqlens = mask.sum(-1, dtype=torch.int32)
    indices = torch.nonzero(mask.flatten(), as_tuple=False).flatten()
    cu = torch.nn.functional.pad(torch.cumsum(seqlens, 0, dtype=torch.int32), (1, 0))
    return index_first_axis(rearrange(hidden, "b s ... -> (b s) ..."), indices), indices, cu, int(seqlens.max()), seqlens


stub_module("flash_attn.bert_padding", index_first_axis=index_first_axis, pad_input=None,
            rearrange=rearrange, unpad_input=unpad_input)
stub_module("flash_attn.utils.distributed", all_gather=None)
ring = bare_import("openrlhf", "openrlhf.models.ring_attn_utils", subdir="openrlhf-0.11.2.data/purelib")


def run():
    res = []
    mask = torch.tensor([[1] * 37 + [0] * 3, [1] * 22 + [0] * 18, [1] * 40])
    seqs = torch.randint(5, 1000, mask.shape)
    for rank in range(4):
        ring.dist = types.SimpleNamespace(get_rank=lambda group=None, r=rank: r,
                                          get_world_size=lambda group=None: 4)
        ring.update_ring_attn_params = lambda cu: None
        s, pos, rolled, pad, _ = ring.unpad_and_slice_tensor(seqs, mask, ring_attn_group=object())
        res.append((rank, tuple(s.shape), s.is_contiguous(), pos.is_contiguous(), rolled.is_contiguous(),
                    s.untyped_storage().nbytes() // s.element_size()))
    return f"(rank, shape, seq/pos/rolled contiguous, base elements) = {res}"


report("CTG102 ring_attn_utils.py:97 output_tensors.append(tensor[:, start:end])", run)
