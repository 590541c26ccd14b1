"""pytorch-forecasting 1.8.0: CTG102 pytorch_forecasting/layers/_normalization/_revin.py:53
(self.last = x[:, -1, :].unsqueeze(1)).

_revin.py is imported bare (it needs only torch).
"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, report  # noqa: E402

torch.manual_seed(0)
revin = bare_import("pytorch-forecasting", "pytorch_forecasting.layers._normalization._revin")


def run():
    B, L, C = 32, 512, 7
    x = torch.randn(B, L, C)
    r = revin.RevIN(C, subtract_last=True)
    y = r(x, "norm")
    last = r.last
    shares = last.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    d = r(y, "denorm")
    r.last = last.contiguous()
    d2 = r(y, "denorm")
    x2 = torch.randn(B, L, C)
    r(x2, "norm")
    replaced = r.last.untyped_storage().data_ptr() == x2.untyped_storage().data_ptr()
    return (f"self.last stride={last.stride()} contiguous={last.is_contiguous()} shares x storage={shares} "
            f"(one input batch, {x.numel() * 4 // 1024} KiB); denorm equal with a contiguous copy="
            f"{torch.equal(d, d2)}; next norm call repoints self.last at the new batch={replaced}")


report("CTG102 _revin.py:53 self.last = x[:, -1, :].unsqueeze(1)", run)
