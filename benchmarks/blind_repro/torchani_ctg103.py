"""torchani 2.9.0: CTG103 torchani/nn/_infer.py:228 (BmmLinear weight Parameter from
cat(...).transpose(1, 2)) and :344 (MNPNetworks register_buffer of copied weights).

_infer.py is imported bare. MNPNetworks.__init__ refuses to run without CUDA, so its
_copy_weights_and_biases is called on a stand-in `self` holding the atomics, and the buffers are
fed to a CPU replay of torchani/csrc/mnp.cpp's forward loop (at::baddbmm / at::addmm + celu,
the ops the extension runs on them).
"""
import io
import sys
import types
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, report  # noqa: E402

torch.manual_seed(0)
inf = bare_import("torchani", "torchani.nn._infer")
core = sys.modules["torchani.nn._core"]


def nets(n=4):
    return [core.AtomicNetwork([16, 32, 24, 1], activation="celu", bias=True) for _ in range(n)]


def bmm_linear():
    lins = [n.layers[0] for n in nets()]
    b = inf.BmmLinear(lins)
    w = b.weight
    x = torch.randn(4, 7, 16)
    with torch.no_grad():
        y = b(x)
        y_ref = torch.stack([lin(x[i]) for i, lin in enumerate(lins)])
    buf = io.BytesIO()
    torch.save(b.state_dict(), buf)
    buf.seek(0)
    b2 = inf.BmmLinear([n.layers[0] for n in nets()])
    b2.load_state_dict(torch.load(buf))
    scripted = torch.jit.script(b)
    return (f"weight stride={w.stride()} contiguous={w.is_contiguous()}; baddbmm forward matches the "
            f"member Linears={torch.allclose(y, y_ref, atol=1e-6)}; save/load_state_dict ok "
            f"(equal={torch.equal(b2.weight, w)}); torch.jit.script ok={torch.allclose(scripted(x), y)}")


report("CTG103 _infer.py:228 nn.Parameter(torch.cat(weights).transpose(1, 2))", bmm_linear)


def mnp_replay(aev, weights, biases, is_bmm):  # CPU replay of mnp.cpp forward for one species
    x = aev
    if is_bmm:
        x = x.expand(weights[0].size(0), -1, -1)
    for j, (w, b) in enumerate(zip(weights, biases)):
        x = torch.baddbmm(b, x, w) if is_bmm else torch.addmm(b, x, w)
        if j < len(weights) - 1:
            x = torch.nn.functional.celu(x, 0.1)
    return x.mean(0) if is_bmm else x


def mnp_buffers():
    res = []
    aev = torch.randn(9, 16)
    members = nets()
    for kind, atomic in (("AtomicNetwork", members[0]), ("BmmAtomicNetwork", inf.BmmAtomicNetwork(members))):
        fake = types.SimpleNamespace(atomics={"H": atomic})
        ws, bs, nl = inf.MNPNetworks._copy_weights_and_biases(fake)
        with torch.no_grad():
            out = mnp_replay(aev, ws, bs, kind.startswith("Bmm"))
            out_c = mnp_replay(aev, [w.contiguous() for w in ws], [b.contiguous() for b in bs], kind.startswith("Bmm"))
            ref = atomic(aev if kind == "AtomicNetwork" else aev.unsqueeze(0))
        res.append(f"{kind}: weight buffers contiguous={[w.is_contiguous() for w in ws]}, replayed mnp output "
                   f"close to contiguous copies={torch.allclose(out, out_c, atol=1e-6)}, matches the network="
                   f"{torch.allclose(out.flatten(), ref.flatten(), atol=1e-5)}")
    return "; ".join(res)


report("CTG103 _infer.py:344 self.register_buffer(name, w)", mnp_buffers)
