"""vLLM-style paged KV cache: one block is selected with a slice of the cache and handed to a
raw-pointer kernel in another module, which reads memory order, i.e. other blocks' data."""
import torch

from _kernels import copy_block

cache = torch.arange(2 * 4 * 8, dtype=torch.float32).reshape(2, 4, 8)   # (kv, blocks, slot)
values = copy_block(cache[:, 1])
print(values[:8] == cache[:, 1].tolist()[0])
