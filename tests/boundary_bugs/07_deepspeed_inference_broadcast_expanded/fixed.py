"""Re-creation of deepspeedai/DeepSpeed#1162, fixed by PR #1168 ("Fix bugs about
non-contiguous tensor broadcasting").

InferenceEngine registers a forward pre-hook that broadcasts every tensor
input from rank 0.  A seq2seq decoder receives an *expanded* attention mask
(`mask[:, None, None, :].expand(...)`), so the hook hands a stride-0 view to
``dist.broadcast`` -> NCCL "Tensors must be non-overlapping and dense" /
"Tensors must be contiguous".
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist

from _support import nccl


class Decoder(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = torch.nn.Linear(d, d)

    def forward(self, hidden, encoder_hidden, encoder_attention_mask=None):
        scores = self.q(hidden) @ encoder_hidden.transpose(-1, -2)
        scores = scores.unsqueeze(1) + encoder_attention_mask
        return torch.softmax(scores, -1).squeeze(1) @ encoder_hidden


class InferenceEngine(torch.nn.Module):
    def __init__(self, module, mp_group):
        super().__init__()
        self.module = module
        self.mp_group = mp_group
        self.module.register_forward_pre_hook(self._pre_forward_hook, with_kwargs=True)

    def _pre_forward_hook(self, module, inputs, kwargs):
        for input in inputs:
            if torch.is_tensor(input):
                dist.broadcast(input, 0, group=self.mp_group)
        for k in kwargs:
            if torch.is_tensor(kwargs[k]):
                kwargs[k] = kwargs[k].contiguous()
                dist.broadcast(kwargs[k], 0, group=self.mp_group)
        return inputs, kwargs

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


def expand_mask(mask, tgt_len):
    bsz, src_len = mask.shape
    inverted = (1.0 - mask[:, None, None, :]) * -1e4
    return inverted.expand(bsz, 1, tgt_len, src_len)


def main():
    nccl.init(world_size=2)
    try:
        torch.manual_seed(0)
        dec = Decoder(8)
        engine = InferenceEngine(dec, dist.group.WORLD)
        hidden, enc = torch.randn(2, 3, 8), torch.randn(2, 5, 8)
        mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=torch.float32)
        with torch.no_grad():
            out = engine(hidden, enc, encoder_attention_mask=expand_mask(mask, 3))
            ref = dec(hidden, enc, encoder_attention_mask=expand_mask(mask, 3).contiguous())
        if not torch.allclose(out, ref, atol=1e-6):
            raise AssertionError("wrong values")
        print("ok", tuple(out.shape))
    finally:
        nccl.shutdown()


if __name__ == "__main__":
    main()
