"""botorch 0.18.1: CTG103 (buffers), CTG104 (.to of strided tensors), CTG102, CTG113.

Imports the pinned botorch tree with gpytorch/linear_operator from the deps folder.
"""
import io
import torch
from common import use_packages, report

use_packages("botorch")
torch.manual_seed(0)

print("== CTG103 botorch/models/deterministic.py:162 register_buffer('b', b.expand(a.size(-1)))")
from botorch.models.deterministic import AffineDeterministicModel
a = torch.rand(3, 2)
m = AffineDeterministicModel(a, b=0.5)
print(f"  b default float, m=2: b stride {m.b.stride()} (expanded)")
report("  forward/posterior", lambda: tuple(m.posterior(torch.rand(4, 3)).mean.shape))
def roundtrip():
    buf = io.BytesIO(); torch.save(m.state_dict(), buf); buf.seek(0)
    m2 = AffineDeterministicModel(a, b=0.5)
    m2.load_state_dict(torch.load(buf))
    return "state_dict save + load_state_dict into a fresh model works"
report("  state_dict round trip", roundtrip)
try:
    roundtrip()
except RuntimeError as e:
    print("   ", str(e).splitlines()[-1].strip()[:200])
def load_other():
    m2 = AffineDeterministicModel(a, b=0.5)
    m2.load_state_dict({"a": a, "b": torch.tensor([1.0, 2.0])})
    return f"loaded distinct offsets: b={m2.b.tolist()}"
report("  load_state_dict with per-output offsets (copy_ into the expanded buffer)", load_other)
def inplace():
    m2 = AffineDeterministicModel(a, b=0.5)
    m2.b.add_(1.0)
    return f"b={m2.b.tolist()}"
report("  in-place update of b", inplace)

print("== CTG103 botorch/test_functions/base.py:157 bounds = tensor(_bounds).transpose(-1,-2)")
from botorch.test_functions.synthetic import Hartmann, Shekel, Branin
from botorch.test_functions.multi_objective import ConstrainedBraninCurrin
from torch.nn.utils import parameters_to_vector
for f in [Branin(), Hartmann(dim=6), Shekel(m=10), ConstrainedBraninCurrin()]:
    bufs = {n: (tuple(b.shape), b.is_contiguous()) for n, b in f.named_buffers()}
    def use(f=f):
        X = torch.rand(5, f.dim, dtype=f.bounds.dtype)
        Xs = f.bounds[0] + (f.bounds[1] - f.bounds[0]) * X
        y = f(Xs)
        sd = f.state_dict(); buf = io.BytesIO(); torch.save(sd, buf); buf.seek(0)
        f.load_state_dict(torch.load(buf))
        f.to(torch.float32)
        extra = ""
        if isinstance(f, ConstrainedBraninCurrin):
            extra = f", slack {tuple(f.evaluate_slack(Xs.to(torch.float32)).shape)}"
        return f"buffers {bufs}; evaluate, state_dict save/load, .to(float32) all run{extra}; params {len(list(f.parameters()))} (parameters_to_vector not applicable)"
    report(f"  {type(f).__name__}", use)
print("  (Shekel covers synthetic.py:803 C buffer, ConstrainedBraninCurrin multi_objective.py:1292 con_bounds)")
s = Shekel(m=10)
X = torch.rand(4, 4, dtype=torch.double) * 10
ref = (1.0 / ((X.unsqueeze(-1) - s.C.contiguous()).pow(2).sum(-2) + s.beta.double()/10).sum(-1)) if False else None
report("  Shekel with C transposed vs C.contiguous()", lambda: (lambda y1: (s.register_buffer("C", s.C.contiguous()), torch.allclose(y1, s.evaluate_true(X)))[1])(s.evaluate_true(X)))

print("== CTG104 botorch/sampling/qmc.py:168 corr_mat = _corr_matrix.to(dtype, device)")
from botorch.sampling.qmc import MultivariateNormalQMCEngine
A = torch.randn(4, 4, dtype=torch.double)
v1 = torch.randn(4, 1, dtype=torch.double)
for label, cov in [("cholesky path", A @ A.T + torch.eye(4, dtype=torch.double)), ("eigh path (singular cov)", v1 @ v1.T)]:
    eng = MultivariateNormalQMCEngine(torch.zeros(4, dtype=torch.double), cov, seed=1)
    cm = eng._corr_matrix
    moved = cm.to(dtype=torch.float32)
    s1 = eng.draw(8)
    eng2 = MultivariateNormalQMCEngine(torch.zeros(4, dtype=torch.double), cov, seed=1)
    eng2._corr_matrix = eng2._corr_matrix.contiguous()
    print(f"  {label}: _corr_matrix stride {cm.stride()} contiguous {cm.is_contiguous()}; .to(float32) copy stride {moved.stride()}; "
          f"draw consumer is `base_samples @ corr_mat + mean`, same as contiguous corr: {torch.allclose(s1, eng2.draw(8))}")

print("== CTG104 botorch/test_functions/synthetic.py:1091/1092 obs_low/obs_high .to(points.device)")
from botorch.test_functions.synthetic import TrajectoryPlanning
tp = TrajectoryPlanning(dim=10)
print(f"  obs_low stride {tp.obs_low.stride()} contiguous {tp.obs_low.is_contiguous()}")
pts = torch.rand(50, 2)
name = ["_is_in_obstacle"]
fn = getattr(tp, name[0])
r1 = fn(pts)
tp.obs_low, tp.obs_high = tp.obs_low.contiguous(), tp.obs_high.contiguous()
r2 = fn(pts)
print(f"  {name[0]}(points): consumers are >=, <=, &, all, any; same result with contiguous boxes: {torch.equal(r1, r2)}")

print("== CTG102 botorch/acquisition/monte_carlo.py:643 self.baseline_samples = samples_full[..., :-q, :]")
from botorch.models import SingleTaskGP
from botorch.acquisition.monte_carlo import qNoisyExpectedImprovement
from botorch.sampling import SobolQMCNormalSampler
Xb = torch.rand(20, 3, dtype=torch.double)
model = SingleTaskGP(Xb, Xb.sum(-1, keepdim=True))
acqf = qNoisyExpectedImprovement(model, Xb, sampler=SobolQMCNormalSampler(torch.Size([64])), cache_root=False)
Xq = torch.rand(5, 2, 3, dtype=torch.double)
v = acqf(Xq)
bs = acqf.baseline_samples
own = bs.numel() * bs.element_size(); base = bs.untyped_storage().nbytes()
print(f"  baseline_samples shape {tuple(bs.shape)} contiguous {bs.is_contiguous()}; own bytes {own}, pinned storage {base} ({base/own:.2f}x, q=2 of n+q=22 rows)")
print(f"  acq values {tuple(v.shape)} computed; consumers of baseline_samples (compute_best_feasible_objective) honour strides")

print("== CTG113 botorch/utils/probability/mvnxpb.py:398 torch.cat([perm, _perm], -1).contiguous()")
for batch in [(), (3,), (2, 3), (2, 3, 4)]:
    perm = torch.arange(4).expand(*batch, 4).clone()
    _perm = torch.arange(4, 6).expand(*batch, 2)
    c = torch.cat([perm, _perm], dim=-1)
    print(f"  batch {batch}: cat contiguous {c.is_contiguous()}, .contiguous() is self: {c.contiguous() is c}")
from botorch.utils.probability.mvnxpb import MVNXPB
C = torch.randn(2, 5, 5, dtype=torch.double); C = C @ C.transpose(-1, -2) + torch.eye(5)
bounds = torch.stack([-torch.ones(2, 5), torch.ones(2, 5)], -1).double()
solver = MVNXPB(C[..., :3, :3], bounds[..., :3, :])
solver.solve()
orig = torch.Tensor.contiguous
seen = []
def spy(self, *a, **k):
    seen.append(self.is_contiguous()); return orig(self, *a, **k)
torch.Tensor.contiguous = spy
try:
    aug = solver.augment(C[..., 3:, 3:], bounds[..., 3:, :], C[..., 3:, :3])
except Exception as e:
    print("  augment raised", e)
torch.Tensor.contiguous = orig
print(f"  real MVNXPB.augment: inputs to .contiguous() were contiguous: {seen}")
