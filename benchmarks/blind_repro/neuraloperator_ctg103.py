"""neuraloperator 2.0.0: CTG103 neuralop/layers/fourier_continuation.py:302
(register_buffer("ext_mat_T", self.ext_mat.T.clone())).

fourier_continuation.py is imported bare (it needs only torch, numpy and tensorly).
"""
import io
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, report  # noqa: E402

torch.manual_seed(0)
fc = bare_import("neuraloperator", "neuralop.layers.fourier_continuation")
fc.tl.set_backend("pytorch")  # as neuralop/layers/spectral_convolution.py sets on import


def ext_mat_t():
    m = fc.FCLegendre(d=4, n_additional_pts=20)
    b = m.ext_mat_T
    x = torch.randn(2, 3, 32, dtype=torch.float64)
    y = m(x, dim=1)
    buf = io.BytesIO()
    torch.save(m.state_dict(), buf)
    buf.seek(0)
    m2 = fc.FCLegendre(d=4, n_additional_pts=20)
    m2.load_state_dict(torch.load(buf))
    m2.ext_mat_T.mul_(1.0)
    src = Path(fc.__file__).parents[1]
    uses = [str(p.relative_to(src)) for p in src.rglob("*.py") if "ext_mat_T" in p.read_text()]
    return (f"ext_mat_T stride={b.stride()} contiguous={b.is_contiguous()}; forward ok {tuple(y.shape)}; "
            f"torch.save + load_state_dict + in-place update ok (equal={torch.equal(m2.ext_mat_T, b)}); "
            f"files reading ext_mat_T={uses} (only the registering line)")


report("CTG103 fourier_continuation.py:302 register_buffer('ext_mat_T', ext_mat.T.clone())", ext_mat_t)
