"""Re-creation of pytorch/pytorch#75009 ("torch.fake_quantize_per_tensor_affine
will affect the results of the model if the input memory is not contiguous").

QAT ShuffleNetV2: ``x1, x2 = x.chunk(2, dim=1)``; ``branch2(x2)`` starts with a
FakeQuantize whose ``forward`` calls ``fake_quantize_per_tensor_affine`` on the
channel-chunk view.  The (1.8.1) kernel walked ``numel`` elements from the data
pointer -> "completely wrong result"; with ``x2.contiguous()`` it is correct.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.raw import read_dense, write_dense


# ---- aten fake_quantize_per_tensor_affine kernel stand-in (raw pointer walk) ------
def fake_quantize_per_tensor_affine(X, scale, zero_point, quant_min, quant_max):
    x = read_dense(X)
    q = torch.clamp(torch.round(x / scale) + zero_point, quant_min, quant_max)
    out = torch.empty(X.shape, dtype=X.dtype)
    write_dense(out, (q - zero_point) * scale)
    return out


class FakeQuantize(torch.nn.Module):
    def __init__(self, scale=0.05, zero_point=128, quant_min=0, quant_max=255):
        super().__init__()
        self.scale, self.zero_point = scale, zero_point
        self.quant_min, self.quant_max = quant_min, quant_max

    def forward(self, X):
        X = fake_quantize_per_tensor_affine(X.contiguous(), float(self.scale), int(self.zero_point),
                                            self.quant_min, self.quant_max)
        return X


def channel_shuffle(x, groups):
    b, c, h, w = x.size()
    x = x.view(b, groups, c // groups, h, w).transpose(1, 2).contiguous()
    return x.view(b, -1, h, w)


class InvertedResidual(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.branch2 = torch.nn.Sequential(FakeQuantize(), torch.nn.Conv2d(c // 2, c // 2, 1, bias=False))

    def forward(self, x):
        x1, x2 = x.chunk(2, dim=1)
        out = torch.cat((x1, self.branch2(x2)), dim=1)
        return channel_shuffle(out, 2)


def main():
    torch.manual_seed(0)
    blk = InvertedResidual(8)
    x = torch.randn(2, 8, 4, 4)
    with torch.no_grad():
        out = blk(x)
        x1, x2 = x.chunk(2, dim=1)
        fq = blk.branch2[0]
        ref_q = torch.fake_quantize_per_tensor_affine(x2, fq.scale, fq.zero_point, 0, 255)
        ref = channel_shuffle(torch.cat((x1, blk.branch2[1](ref_q)), 1), 2)
    if not torch.allclose(out, ref, atol=1e-6):
        raise AssertionError("wrong values")
    print("ok", tuple(out.shape))


if __name__ == "__main__":
    main()
