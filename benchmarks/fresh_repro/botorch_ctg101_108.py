"""botorch 0.18.1: CTG101 (posteriors/base_samples.py) and CTG108 (optim/optimize.py).

Imports the pinned botorch tree with gpytorch/linear_operator from the deps folder
(common.py puts both on sys.path).
"""
import torch
from common import use_packages, report

use_packages("botorch")
from gpytorch.distributions import MultivariateNormal, MultitaskMultivariateNormal
from botorch.posteriors.gpytorch import GPyTorchPosterior
from botorch.posteriors.base_samples import _reshape_base_samples_non_interleaved

torch.manual_seed(0)
print("== CTG101 botorch/posteriors/base_samples.py:41 `.view(new_shape)` (+ build/lib copy)")
for batch, n, m in [((), 3, 2), ((2,), 4, 3), ((2, 5), 1, 4), ((3,), 6, 2)]:
    mvns = []
    for _ in range(m):
        A = torch.randn(*batch, n, n, dtype=torch.double)
        mvns.append(MultivariateNormal(torch.randn(*batch, n, dtype=torch.double),
                                       A @ A.transpose(-1, -2) + torch.eye(n, dtype=torch.double)))
    mt = MultitaskMultivariateNormal.from_independent_mvns(mvns)
    post = GPyTorchPosterior(mt)
    ss = torch.Size([7])
    bs = torch.randn(ss + post.base_sample_shape, dtype=torch.double)
    def run():
        t = bs.transpose(-1, -2)
        out = _reshape_base_samples_non_interleaved(mt, bs, ss)
        s = post.rsample_from_base_samples(ss, bs)
        return (f"interleaved={mt._interleaved}, transposed contiguous={t.is_contiguous()}, "
                f"view target == transposed shape: {tuple(ss + mt._output_shape[:-2] + mt._output_shape[:-3:-1]) == tuple(t.shape)}; "
                f"ran, out {tuple(out.shape)}, rsample {tuple(s.shape)}")
    report(f"  batch={batch} n={n} m={m}", run)

print("== CTG108 botorch/optim/optimize.py:997 `candidates[i] = candidate_i` (+ build/lib copy)")
from botorch.optim.optimize import _optimize_acqf_all_features_fixed, optimize_acqf_cyclic
from botorch.models import SingleTaskGP
from botorch.acquisition import qExpectedImprovement, qSimpleRegret

X = torch.rand(8, 3, dtype=torch.double)
Y = X.sum(-1, keepdim=True)
model = SingleTaskGP(X, Y)
bounds = torch.stack([torch.zeros(3), torch.ones(3)]).double()
acqf = qSimpleRegret(model)
ff = {0: 0.2, 1: 0.5, 2: 0.7}
Xc, v = _optimize_acqf_all_features_fixed(bounds=bounds, fixed_features=ff, q=3, acq_function=acqf)
print(f"  all-features-fixed candidates: shape {tuple(Xc.shape)} stride {Xc.stride()} (expanded), acq value shape {tuple(v.shape)}")
c = Xc.clone()
Xc_w = Xc
def write():
    Xc_w[1] = torch.tensor([[0.9, 0.9, 0.9]], dtype=torch.double)
    return f"wrote row 1 only; rows now {Xc_w.tolist()} (all rows changed: {bool((Xc_w[0] == 0.9).all())})"
report("  direct write into expanded candidates (illustration)", write)
def cyclic():
    cand, vals = optimize_acqf_cyclic(acqf, bounds, q=3, num_restarts=2, raw_samples=8,
                                      fixed_features=ff, cyclic_options={"maxiter": 3})
    return f"returned {cand.tolist()} stride {cand.stride()}"
report("  optimize_acqf_cyclic(q=3, all features fixed) through the flagged line", cyclic)
def cyclic_free():
    cand, vals = optimize_acqf_cyclic(acqf, bounds, q=2, num_restarts=2, raw_samples=8,
                                      options={"maxiter": 5}, cyclic_options={"maxiter": 2})
    return f"free features: candidates stride {cand.stride()} contiguous {cand.is_contiguous()}"
report("  optimize_acqf_cyclic(q=2), no fixed features", cyclic_free)
