"""Re-creation of open-mmlab/mmcv PR #737 ("fix grad_output uncontiguous"):
"Some complex head architecture may cause grad_output uncontiguous, eg. dii
head in sparsercnn".

The DII head consumes RoI features as ``roi_feat.view(N, C, -1).permute(2, 0, 1)``;
autograd then hands ``RoIAlignFunction.backward`` a permuted grad_output and
``ext_module.roi_align_backward`` reads it through its data pointer densely.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
from torch.autograd.function import once_differentiable

from _support.raw import read_dense


def _bins(roi, out_size):
    _, x1, y1, x2, y2 = [int(v) for v in roi]
    hs, ws = (y2 - y1) // out_size, (x2 - x1) // out_size
    for ph in range(out_size):
        for pw in range(out_size):
            yield ph, pw, slice(y1 + ph * hs, y1 + (ph + 1) * hs), slice(x1 + pw * ws, x1 + (pw + 1) * ws)


# ---- mmcv/ops/csrc roi_align stand-ins (avg mode, integer boxes) ----------------
def roi_align_forward(input, rois, output, out_size):
    for r, roi in enumerate(rois):
        b = int(roi[0])
        for ph, pw, ys, xs in _bins(roi, out_size):
            output[r, :, ph, pw] = input[b, :, ys, xs].mean((-1, -2))


def roi_align_backward(grad_output, rois, grad_input, out_size):
    g = read_dense(grad_output)                       # grad_output.data_ptr<scalar_t>()
    for r, roi in enumerate(rois):
        b = int(roi[0])
        for ph, pw, ys, xs in _bins(roi, out_size):
            cnt = (ys.stop - ys.start) * (xs.stop - xs.start)
            grad_input[b, :, ys, xs] += (g[r, :, ph, pw] / cnt)[:, None, None]


class RoIAlignFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, rois, output_size):
        ctx.output_size, ctx.input_shape = output_size, input.size()
        ctx.save_for_backward(rois)
        output = input.new_zeros((rois.size(0), input.size(1), output_size, output_size))
        roi_align_forward(input, rois, output, output_size)
        return output

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (rois,) = ctx.saved_tensors
        grad_input = grad_output.new_zeros(ctx.input_shape)
        roi_align_backward(grad_output, rois, grad_input, ctx.output_size)  # bug-line
        return grad_input, None, None


def dii_head(roi_feat, proposal_feat, attn):
    N, C = roi_feat.shape[:2]
    roi_feat = roi_feat.view(N, C, -1).permute(2, 0, 1)         # (S*S, N, C)
    return (attn(roi_feat) * proposal_feat).sum()


def main():
    torch.manual_seed(0)
    feat = torch.randn(1, 4, 8, 8, requires_grad=True)
    rois = torch.tensor([[0, 0, 0, 8, 8], [0, 2, 2, 6, 6]], dtype=torch.float32)
    attn = torch.nn.Linear(4, 4)
    proposal = torch.randn(2, 4)
    dii_head(RoIAlignFunction.apply(feat, rois, 2), proposal, attn).backward()
    got = feat.grad.clone()
    feat.grad = None
    ref_in = feat.detach().clone().requires_grad_()
    pooled = torch.stack([torch.stack([ref_in[0, :, ys, xs].mean((-1, -2)) for ph, pw, ys, xs in _bins(r, 2)], -1)
                          for r in rois]).view(2, 4, 2, 2)
    dii_head(pooled, proposal, attn).backward()
    if not torch.allclose(got, ref_in.grad, atol=1e-6):
        raise AssertionError("wrong values")
    print("ok", float(got.abs().sum()))


if __name__ == "__main__":
    main()
