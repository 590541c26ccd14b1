"""Gradient bucketing that all-reduces a column slice of a flat gradient matrix. With gloo and
two ranks this reduces the wrong elements and corrupts the neighbours (docs/layout-facts.md);
here a one-rank gloo group runs the very same call in a second."""
import os
import tempfile

import torch
import torch.distributed as dist

store = os.path.join(tempfile.mkdtemp(), "store")
dist.init_process_group("gloo", init_method=f"file://{store}", rank=0, world_size=1)
grads = torch.randn(4, 8)
bucket = grads[:, ::2]
dist.all_reduce(bucket)  # bug-line: CTG107
dist.destroy_process_group()
