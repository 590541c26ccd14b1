"""Re-creation of NVIDIA/Megatron-LM PR #570 ("Fix not contiguous error when
generation with return_output_log_probs=True").

In ``generate_tokens_probs_and_return_on_first_stage`` the last pipeline stage
trims ``output_log_probs[:, :context_length]`` -- a non-contiguous view -- and
``broadcast_from_last_to_first_pipeline_stage`` asserts contiguity
(``_is_cuda_contiguous``) before ``torch.distributed.broadcast``.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist

from _support import nccl


def is_pipeline_last_stage():
    return True


def _is_cuda_contiguous(tensor):
    assert tensor.is_contiguous()


def broadcast_from_last_to_first_pipeline_stage(size, dtype, tensor=None):
    if is_pipeline_last_stage():
        _is_cuda_contiguous(tensor)
    else:
        tensor = torch.empty(size, dtype=dtype)
    src = dist.get_world_size() - 1                      # last pipeline rank
    dist.broadcast(tensor, src, group=dist.group.WORLD)  # embedding group
    return tensor


def generate_tokens_probs_and_return_on_first_stage(logits_fn, tokens, lengths, max_len,
                                                    return_output_log_probs=True):
    batch_size = tokens.size(0)
    output_log_probs = torch.empty(batch_size, max_len - 1, dtype=torch.float32)
    context_length = int(lengths.min())
    for t in range(1, context_length + 1):
        log_probs = torch.log_softmax(logits_fn(tokens[:, :t]), -1)
        output_log_probs[:, t - 1] = log_probs.gather(1, tokens[:, t:t + 1]).squeeze(1)
    if is_pipeline_last_stage() and return_output_log_probs:
        output_log_probs = output_log_probs[:, :context_length].contiguous()
    if return_output_log_probs:
        output_log_probs_size = (batch_size, context_length)
        output_log_probs = broadcast_from_last_to_first_pipeline_stage(
            output_log_probs_size, torch.float32, output_log_probs)
    return tokens, output_log_probs


def main():
    nccl.init(world_size=2)
    try:
        torch.manual_seed(0)
        emb = torch.randn(10, 10)
        logits_fn = lambda prefix: emb[prefix[:, -1]]
        tokens = torch.randint(0, 10, (2, 8))
        _, lp = generate_tokens_probs_and_return_on_first_stage(logits_fn, tokens, torch.tensor([5, 6]), 8)
        ref = torch.stack([torch.log_softmax(emb[tokens[:, t - 1]], -1).gather(1, tokens[:, t:t + 1]).squeeze(1)
                           for t in range(1, 6)], 1)
        if not torch.allclose(lp, ref, atol=1e-6):
            raise AssertionError("wrong values")
        print("ok", tuple(lp.shape))
    finally:
        nccl.shutdown()


if __name__ == "__main__":
    main()
