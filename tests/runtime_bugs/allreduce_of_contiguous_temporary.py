"""Megatron-LM #5337 pattern: all_reduce(x.contiguous()) reduces a temporary copy when x is not
contiguous, so x itself is never updated (a lost update)."""
import os
import tempfile

import torch
import torch.distributed as dist

store = os.path.join(tempfile.mkdtemp(), "store")
dist.init_process_group("gloo", init_method=f"file://{store}", rank=0, world_size=1)
embedding_grad = torch.randn(16, 4).t()
dist.all_reduce(embedding_grad.contiguous())  # bug-line: CTG111
dist.destroy_process_group()
