"""Re-creation of pytorch/FBGEMM PR #3006 ("Fix pack_segments backward when grad
is non-contig"): "the input's gradient will be incorrect when the backward
input grad_out is not contiguous.  This diff ensures the gradients are
contiguous."

The packed [B, max_len, D] output is consumed sequence-first
(``packed.transpose(0, 1)``), so autograd returns a transposed grad to
``PackSegments.backward`` -> ``pack_segments_backward_cuda`` reads it densely.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.raw import read_dense


# ---- fbgemm_gpu/src/sparse_ops stand-ins ------------------------------------------
def pack_segments_forward_cuda(t_in, lengths, max_length):
    out = t_in.new_zeros((lengths.numel(), max_length) + t_in.shape[1:])
    start = 0
    for i, n in enumerate(lengths.tolist()):
        out[i, :n] = t_in[start:start + n]
        start += n
    return out


def pack_segments_backward_cuda(data, lengths, total_length, max_length):
    d = read_dense(data)                                  # data.data_ptr<scalar_t>()
    grad = d.new_empty((total_length,) + d.shape[2:])
    start = 0
    for i, n in enumerate(lengths.tolist()):
        grad[start:start + n] = d[i, :n]
        start += n
    return grad


class PackSegments(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t_in, lengths, max_length):
        ctx.save_for_backward(lengths)
        ctx.total_length, ctx.max_length = t_in.shape[0], max_length
        return pack_segments_forward_cuda(t_in, lengths, max_length)

    @staticmethod
    def backward(ctx, grad_output):
        (lengths,) = ctx.saved_tensors
        grad_input = pack_segments_backward_cuda(grad_output.contiguous(), lengths, ctx.total_length,
                                                 ctx.max_length)
        return grad_input, None, None


def pack_segments(t_in, lengths, max_length):
    return PackSegments.apply(t_in, lengths, max_length)


def sequence_model(values, lengths, rnn_like):
    packed = pack_segments(values, lengths, int(lengths.max()))   # [B, T, D]
    return rnn_like(packed.transpose(0, 1))                       # [T, B, D]


def main():
    torch.manual_seed(0)
    lengths = torch.tensor([3, 1, 4])
    values = torch.randn(int(lengths.sum()), 5, requires_grad=True)
    w = torch.randn(4, 3, 5)
    sequence_model(values, lengths, lambda x: (x * w).sum()).backward()
    got = values.grad.clone()
    ref_v = values.detach().clone().requires_grad_()
    packed = torch.nn.utils.rnn.pad_sequence(list(ref_v.split(lengths.tolist())), batch_first=True)
    (packed.transpose(0, 1) * w).sum().backward()
    if not torch.allclose(got, ref_v.grad):
        raise AssertionError("wrong values")
    print("ok", float(got.abs().sum()))


if __name__ == "__main__":
    main()
