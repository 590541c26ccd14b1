"""neuralforecast 3.3.0: CTG102 common/_modules.py:1207 (RevIN self.last), CTG102
losses/pytorch.py:1291 (BaseISQF self.sk_x_plus), CTG103 models/nbeats.py:196 and :202 (TrendBasis
Parameters from torch.tensor(basis.T)), CTG102 models/timemixer.py:249 (out_list.append).

Modules are imported bare; common._base_model (Lightning/pandas) is stubbed with an nn.Module
base class, which only the top-level model classes (not used here) inherit from.
"""
import io
import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, report, stub_module  # noqa: E402

torch.manual_seed(0)
stub_module("neuralforecast.common._base_model", BaseModel=nn.Module)
mods = bare_import("neuralforecast", "neuralforecast.common._modules")
losses = bare_import("neuralforecast", "neuralforecast.losses.pytorch")
nbeats = bare_import("neuralforecast", "neuralforecast.models.nbeats")
timemixer = bare_import("neuralforecast", "neuralforecast.models.timemixer")
ser = bare_import("neuralforecast", "neuralforecast._serialization")


def revin():
    B, L, C = 32, 512, 7
    x = torch.randn(B, L, C)
    r = mods.RevIN(C, subtract_last=True)
    y = r(x, "norm")
    last = r.last
    shares = last.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    d = r(y, "denorm")
    r.last = last.contiguous()
    d2 = r(y, "denorm")
    x2 = torch.randn(B, L, C)
    r(x2, "norm")
    replaced = r.last.untyped_storage().data_ptr() == x2.untyped_storage().data_ptr()
    return (f"self.last contiguous={last.is_contiguous()} stride={last.stride()} shares x storage={shares} "
            f"(pins {x.numel() * 4 // 1024} KiB, one input batch, vs {last.numel() * 4} B); denorm equal with "
            f"a contiguous copy={torch.equal(d, d2)}; next norm call repoints self.last at the new batch={replaced}")


report("CTG102 _modules.py:1207 self.last = x[:, -1, :].unsqueeze(1)", revin)


def isqf():
    bs, num_qk = (6,), 5
    qk_x = torch.sort(torch.rand(*bs, num_qk), -1).values
    qk_y = torch.sort(torch.randn(*bs, num_qk), -1).values
    sk = torch.rand(*bs, num_qk - 1, 1)
    sh = torch.rand(*bs, num_qk - 1, 1)
    bl, br = torch.rand(*bs) + 0.5, torch.rand(*bs) + 0.5
    d = losses.BaseISQF(sk, sh, bl, br, qk_y, qk_x)
    v = d.sk_x_plus
    pinned_anyway = d.qk_x.untyped_storage().data_ptr() == v.untyped_storage().data_ptr()
    z = torch.randn(*bs)
    a = torch.rand(3, *bs)
    out1 = (d.crps(z), d.cdf(z), d.quantile(a))
    d.sk_x_plus = v.contiguous()
    out2 = (d.crps(z), d.cdf(z), d.quantile(a))
    return (f"num_pieces=1: sk_x_plus contiguous={v.is_contiguous()} stride={v.stride()}, same base as self.qk_x "
            f"(already stored)={pinned_anyway}; crps/cdf/quantile equal with a contiguous copy="
            f"{all(torch.equal(p, q) for p, q in zip(out1, out2))}")


report("CTG102 losses/pytorch.py:1291 self.sk_x_plus = self.qk_x_plus.unsqueeze(-1)", isqf)


def trend(basis):
    m = nbeats.TrendBasis(n_basis=4, backcast_size=48, forecast_size=12, basis=basis)
    b, f = m.backcast_basis, m.forecast_basis
    bs, bc, fs, fc = b.stride(), b.is_contiguous(), f.stride(), f.is_contiguous()
    theta = torch.randn(4, 5 + 5)
    out = m(theta)
    buf = io.BytesIO()
    torch.save(m.state_dict(), buf)
    buf.seek(0)
    m2 = nbeats.TrendBasis(n_basis=4, backcast_size=48, forecast_size=12, basis=basis)
    m2.load_state_dict(torch.load(buf))
    tensors, meta = ser.load_tensors(ser.save_tensors(m.state_dict(), {}))  # neuralforecast's own save
    ser.load_state_dict_exact(m2, tensors, meta)
    opt = torch.optim.Adam(m.parameters())
    opt.step()
    m.backcast_basis.data = b.data.contiguous()
    m.forecast_basis.data = f.data.contiguous()
    out2 = m(theta)
    try:
        torch.nn.utils.parameters_to_vector(m2.parameters())
        p2v = "ok"
    except RuntimeError as e:
        p2v = "RAISES " + str(e).splitlines()[0][:60]
    return (f"backcast_basis stride={bs} contiguous={bc}, forecast_basis stride="
            f"{fs} contiguous={fc}; einsum outputs equal with contiguous bases="
            f"{all(torch.equal(p, q) for p, q in zip(out, out2))}; torch.save/load and neuralforecast save_tensors/load_state_dict_exact (safetensors) ok; Adam "
            f"step ok (requires_grad=False); parameters_to_vector {p2v} (never called by neuralforecast)")


for basis in ["polynomial", "legendre", "changepoint", "piecewise_linear", "linear_hat", "spline",
              "chebyshev"]:
    report(f"CTG103 nbeats.py:196/202 nn.Parameter(torch.tensor(get_basis(...).T)) basis={basis}",
           lambda: trend(basis))


def pdm():
    blk = timemixer.PastDecomposableMixing(seq_len=96, pred_len=24, down_sampling_window=2,
                                           down_sampling_layers=2, d_model=16, dropout=0.0,
                                           channel_independence=1, decomp_method="moving_avg",
                                           d_ff=32, moving_avg=25, top_k=5).eval()
    x_list = [torch.randn(8, 96 // 2 ** i, 16) for i in range(3)]
    outs = blk(x_list)
    info = [(o.is_contiguous(), tuple(o.shape), o.untyped_storage().nbytes() // (4 * o.numel())) for o in outs]
    nxt = blk(outs)
    nxt2 = blk([o.contiguous() for o in outs])
    return (f"(contiguous, shape, base/view size) per out={info}; the next block's outputs equal with "
            f"contiguous inputs={all(torch.equal(p, q) for p, q in zip(nxt, nxt2))}")


report("CTG102 timemixer.py:249 out_list.append(out[:, :length, :])", pdm)
