"""pyro-ppl 1.9.2: CTG102 pyro/ops/gamma_gaussian.py:92 `self.precision = precision` and
CTG113 pyro/contrib/gp/models/sgpr.py:236 `K = W_Dinv.matmul(W.t()).contiguous()`.
Imports the pinned pyro tree (deps folder: pyro-api, opt_einsum, tqdm).
"""
import torch
from common import use_packages, report

use_packages("pyro-ppl")
from pyro.ops.gamma_gaussian import GammaGaussian, gamma_and_mvn_to_gamma_gaussian
torch.manual_seed(0)

print("== CTG102 gamma_gaussian.py:92 self.precision = precision")
n, m, batch = 3, 4, (5,)
A = torch.randn(*batch, n + m, n + m); P = A @ A.transpose(-1, -2) + torch.eye(n + m)
g = GammaGaussian(torch.randn(batch), torch.randn(*batch, n + m), P, torch.rand(batch) + 2, torch.rand(batch) + 1)
for label, make in [("condition(value)", lambda: g.condition(torch.randn(*batch, m))), ("g[(slice(1, 3),)]", lambda: g[(slice(1, 3),)]),
                    ("expand", lambda: g[(slice(0, 1),)].expand((4,))), ("marginalize(right=m)", lambda: g.marginalize(right=m))]:
    h = make()
    pr = h.precision
    own = pr.numel() * pr.element_size(); pinned = pr.untyped_storage().nbytes()
    print(f"  {label}: stored precision {tuple(pr.shape)} contiguous {pr.is_contiguous()}, pins {pinned} B for {own} B own; "
          f"the base is the caller's g.precision (alive with g): {pr.untyped_storage().data_ptr() == g.precision.untyped_storage().data_ptr()}")
h = g.condition(torch.randn(*batch, m))
hc = GammaGaussian(h.log_normalizer, h.info_vec, h.precision.contiguous(), h.alpha, h.beta)
report("  consumers on the conditioned one (log_density, marginalize, event_pad, +, compound)",
       lambda: all([torch.allclose(h.log_density(torch.randn(*batch, n), torch.ones(batch)) * 0 + 1, torch.ones(batch)),
                    torch.allclose(h.marginalize(right=1).precision, hc.marginalize(right=1).precision),
                    torch.allclose((h + h).precision, (hc + hc).precision),
                    tuple(h.event_pad(left=1).precision.shape) == (5, n + 1, n + 1),
                    torch.allclose(h.compound().loc, hc.compound().loc)]))

print("== CTG113 sgpr.py:236 K = W_Dinv.matmul(W.t()).contiguous()")
import pyro.contrib.gp as gp
X = torch.randn(20, 2); y = torch.randn(20); Xu = torch.randn(6, 2)
for approx in ("VFE", "DTC", "FITC"):
    model = gp.models.SparseGPRegression(X, y, gp.kernels.RBF(2), Xu, approx=approx)
    orig = torch.Tensor.contiguous
    seen = []
    def spy(self, *a, **k):
        seen.append((tuple(self.shape), self.is_contiguous())); return orig(self, *a, **k)
    torch.Tensor.contiguous = spy
    try:
        loc, cov = model(torch.randn(4, 2), full_cov=True)
    finally:
        torch.Tensor.contiguous = orig
    print(f"  approx={approx}: .contiguous() inputs (shape, already contiguous) in forward: {seen}")
y2 = torch.randn(3, 20)
model = gp.models.SparseGPRegression(X, y2, gp.kernels.RBF(2), Xu)
W = torch.randn(6, 20); D = torch.rand(20)
K = (W / D).matmul(W.t())
print(f"  batched y (3, 20) runs: {tuple(model(torch.randn(4, 2))[0].shape)}; W is always 2-D, matmul(2-D, 2-D.t()) gives stride {K.stride()} contiguous {K.is_contiguous()}")
