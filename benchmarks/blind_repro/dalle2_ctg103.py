"""dalle2-pytorch 1.15.6: CTG103 dalle2_pytorch/vqgan_vae.py:209
(self.register_buffer('rel_pos', rel_pos, persistent = False)).

vqgan_vae.py is imported bare; vector_quantize_pytorch and torchvision, which the flagged class
(ContinuousPositionBias) does not use, are stubbed.
"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, report, stub_module  # noqa: E402

torch.manual_seed(0)
stub_module("vector_quantize_pytorch", VectorQuantize=object)
stub_module("torchvision")
vq = bare_import("dalle2-pytorch", "dalle2_pytorch.vqgan_vae")


def through_layers(bias, table):
    out = table.float()
    for layer in bias.net:
        out = layer(out)
    return out


def rel_pos():
    bias = vq.ContinuousPositionBias(dim=8, heads=2)
    x = torch.randn(1, 2, 16, 16)  # (batch, heads, i, j) of a 4x4 feature map
    y = bias(x)
    buffer = bias.rel_pos
    same = torch.allclose(through_layers(bias, buffer), through_layers(bias, buffer.contiguous()))
    return (f"rel_pos stride={buffer.stride()} contiguous={buffer.is_contiguous()}; forward ok "
            f"{tuple(y.shape)}, the same on the second call ({torch.equal(y, bias(x))}); its "
            f"consumers, the nn.Linear layers, give the same with a contiguous copy ({same}); "
            f"in state_dict: {'rel_pos' in bias.state_dict()} (persistent=False)")


report("CTG103 vqgan_vae.py:209 register_buffer('rel_pos', rel_pos, persistent = False)", rel_pos)
