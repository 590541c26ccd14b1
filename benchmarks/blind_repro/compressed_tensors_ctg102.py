"""compressed-tensors 0.20.1: CTG102 compressed_tensors/utils/helpers.py:267 (shards.append(shard)).

helpers.py is imported bare with `transformers` stubbed (it only imports AutoConfig/PretrainedConfig
for other helpers).
"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, report, stub_module  # noqa: E402

torch.manual_seed(0)
stub_module("transformers", AutoConfig=object, PretrainedConfig=object)
h = bare_import("compressed-tensors", "compressed_tensors.utils.helpers")


def shard_dim(dim):
    t = torch.randn(6, 8)
    shards = h.shard_tensor(t, [2, 1, 3] if dim == 0 else [4, 4], dim=dim)
    info = [(s.is_contiguous(), s.stride(), s.untyped_storage().data_ptr() == t.untyped_storage().data_ptr())
            for s in shards]
    back = h.combine_shards(shards, dim=dim)
    pinned = sum(s.numel() for s in shards) == t.numel()
    return (f"(contiguous, stride, shares base) per shard={info}; shards together cover the whole base="
            f"{pinned}; combine_shards round-trip equal={torch.equal(back, t)}")


report("CTG102 helpers.py:267 shard_tensor dim=0", lambda: shard_dim(0))
report("CTG102 helpers.py:267 shard_tensor dim=1", lambda: shard_dim(1))
report("CTG102 helpers.py:267 in-package callers of shard_tensor",
       lambda: sorted(str(p.relative_to(h.__file__.rsplit('/compressed_tensors/', 1)[0]))
                      for p in Path(h.__file__).parents[1].rglob('*.py')
                      if 'shard_tensor(' in p.read_text() and p.name != 'helpers.py'))
