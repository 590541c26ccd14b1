"""Contiguity contracts: learned per function and across files (CTG114), the per-backend
collective table shared by CTG107 and the runtime watcher, and the runtime watch at the same
boundaries (guards, call chains, safetensors, custom ops)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from contiglint.catalogue import collectives, contracts as catalogue
from contiglint.engine import lint_source
from contiglint.rules import registry
from contiglint.settings import Settings
from tests.clitools import contiglint, environment

torch = pytest.importorskip("torch")

from contiglint.runtime.hazards import HazardFinder  # noqa: E402
from contiglint.verify.frames import Site  # noqa: E402
from contiglint.verify.layout_summary import summarize  # noqa: E402
from contiglint.verify.observation import Argument, Observation  # noqa: E402

# every default rule and the preview rules (CTG101 is one): the cases below read their findings
PREVIEW = tuple(entry.code for entry in registry.entries() if entry.preview)
ALL = Settings(select=("CTG1",), extend_select=PREVIEW)


def codes(text: str, settings: Settings = ALL, path: str = "m.py") -> set[tuple[int, str]]:
    result = lint_source(textwrap.dedent(text), path, settings)
    assert not result.errors, result.errors
    return {(f.line, f.code) for f in result.findings}


def test_learned_contracts_guard_raw_read_and_propagation():
    found = codes("""
        import torch

        def check(t):
            assert t.is_contiguous()

        def kernel(x, w):
            check(x)
            if w.stride(-1) != 1:
                raise ValueError("w")
            return x.data_ptr()

        def caller():
            h = torch.randn(4, 6)
            a = kernel(h.t(), h)
            b = kernel(h, h.t())
            c = kernel(h, h[:, :2])
            return a, b, c
    """)
    # line 15: x transposed; line 16: w transposed (last stride not 1); line 17: a row slice
    # keeps unit-stride rows, which the inner guard accepts
    assert found == {(15, "CTG114"), (16, "CTG114")}


def test_identity_uses_and_callee_fixes_are_no_contract():
    assert codes("""
        import torch

        def same(a, b):
            return a.data_ptr() == b.data_ptr()

        def fix(x):
            if not x.is_contiguous():
                x = x.contiguous()
            return x.data_ptr()

        def caller(h):
            return same(h.t(), h), fix(h.t())
    """) == set()


def test_cross_file_contract_through_a_wrapper(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernels.py").write_text(
        "import torch\n\ndef fused(x):\n    torch._check(x.is_contiguous())\n    return x\n")
    (package / "ops.py").write_text(
        "from .kernels import fused\n\ndef wrapper(x):\n    return fused(x)\n")
    (package / "model.py").write_text(
        "import torch\nfrom .ops import wrapper\n\n\ndef forward(h):\n"
        "    return wrapper(h.transpose(0, 1)), wrapper(h)\n")
    result = contiglint("check", "--no-cache", "--format", "json", "--exit-zero", str(package),
                        cwd=tmp_path)
    findings = json.loads(result.stdout)
    assert [(f["path"].endswith("model.py"), f["line"], f["code"]) for f in findings] == \
        [(True, 6, "CTG114")]
    alone = contiglint("check", "--no-cache", "--format", "json", "--exit-zero",
                       str(package / "model.py"), cwd=tmp_path)
    assert json.loads(alone.stdout) == []  # the contract lives in the other files


def test_check_function_imported_from_another_module_is_a_guard(tmp_path):
    """`from .utils import torch_check` where utils defines a TORCH_CHECK stand-in: the
    checked parameter is required contiguous, for callers in a third module too; a function
    of the same name that is no check function makes no contract."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(
        "def torch_check(cond, message):\n    if not cond:\n        raise RuntimeError(message)"
        "\n\n\ndef log(cond, message):\n    print(cond, message)\n")
    (package / "kernels.py").write_text(
        "from .utils import log, torch_check\n\n\ndef fused(x, y):\n"
        "    torch_check(x.is_contiguous(), 'x')\n    log(y.is_contiguous(), 'y')\n"
        "    return x + y\n")
    (package / "model.py").write_text(
        "import torch\nfrom .kernels import fused\n\n\ndef forward(h):\n"
        "    return fused(h.t(), h.t()), fused(h, h)\n")
    result = contiglint("check", "--no-cache", "--format", "json", "--exit-zero", str(package),
                        cwd=tmp_path)
    findings = json.loads(result.stdout)
    assert [(f["path"].endswith("model.py"), f["line"], f["code"]) for f in findings] == \
        [(True, 6, "CTG114")]
    assert findings[0]["column"] < len("    return fused(h.t(), ")  # x, not y
    assert "kernels.py:5" in findings[0]["message"]


def test_backend_option_chooses_the_table(tmp_path):
    source = ("import torch\nimport torch.distributed as dist\n\n\ndef f(out, x):\n"
              "    dist.all_gather(out, x.t())\n    dist.all_reduce(x.t())\n")
    assert codes(source) == {(6, "CTG107"), (7, "CTG107")}
    gloo = Settings(select=("CTG1",), extend_select=PREVIEW, rule_options={"CTG107": {"backend": "gloo"}})
    assert codes(source, gloo) == {(7, "CTG107")}
    (tmp_path / "pyproject.toml").write_text('[tool.contiglint.CTG107]\nbackend = "mpi"\n')
    (tmp_path / "m.py").write_text(source)
    result = contiglint("check", "m.py", cwd=tmp_path)
    assert result.returncode == 2 and "'mpi'" in result.stderr and "backend" in result.stderr


def _static_flags(op: str, slot: collectives.Slot, backend: str) -> bool:
    arguments = ["a", "b", "c"][:max(s.position for s in collectives.COLLECTIVES[op]) + 1]
    bad = "[x.t()]" if slot.is_list else "x.t()"
    arguments[slot.position] = bad
    source = (f"import torch\nimport torch.distributed as dist\n\n\ndef f(a, b, c, x):\n"
              f"    dist.{op}({', '.join(arguments)})\n")
    settings = Settings(select=("CTG107",), rule_options={"CTG107": {"backend": backend}})
    return (6, "CTG107") in codes(source, settings)


def _runtime_flags(op: str, slot: collectives.Slot, backend: str) -> bool:
    tensor = torch.randn(3, 4).t()
    name = f"{slot.keyword}[0]" if slot.is_list else slot.keyword
    observation = Observation(Site("f.py", 1, "f"), f"torch.distributed.{op}", "entry", True,
                              (Argument(name, summarize(tensor)),), ())
    return any(h.code == "CTG107"
               for h in HazardFinder(backend=backend).hazards(observation))


@pytest.mark.parametrize("backend", collectives.BACKENDS)
def test_static_and_runtime_classify_every_collective_slot_alike(backend):
    for op, slots in collectives.COLLECTIVES.items():
        for slot in slots:
            expected = bool(slot.effect(backend))
            assert _static_flags(op, slot, backend) == expected, (op, slot.keyword, backend)
            assert _runtime_flags(op, slot, backend) == expected, (op, slot.keyword, backend)


def test_static_and_runtime_agree_on_known_library_contracts():
    for qualname, known in catalogue.KNOWN.items():
        module, _, name = qualname.rpartition(".")
        source = (f"import torch\nimport {module}\n\n\ndef f(x):\n"
                  f"    {qualname}({{'w': x.t()}}, 'f')\n")
        assert (6, "CTG114") in codes(source), qualname
        observation = Observation(Site("f.py", 1, "f"), qualname, "entry", True,
                                  (Argument("tensors['w']", summarize(torch.ones(2, 3).t())),),
                                  ())
        assert [h.code for h in HazardFinder().hazards(observation)] == ["CTG114"], qualname


def test_safetensors_rejects_what_the_catalogue_says(tmp_path):
    safetensors = pytest.importorskip("safetensors.torch")
    with pytest.raises(ValueError, match="non contiguous"):
        safetensors.save_file({"w": torch.randn(3, 4).t()}, str(tmp_path / "w.st"))


WATCHED = '''\
import torch


def check(t):
    assert t.is_contiguous(), "t must be contiguous"


def kernel(x):
    check(x)
    return x * 2


def main():
    h = torch.randn(4, 6)
    kernel(h)
    try:
        kernel(h.t())
    except AssertionError:
        pass


main()
'''


def test_runtime_watch_reports_a_failing_guard_with_the_user_call_chain(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(WATCHED)
    report = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "contiglint.runtime", "--format", "json", "--output",
                    str(report), str(script)], cwd=tmp_path, env=environment(), check=True,
                   timeout=300)
    entries = json.loads(report.read_text())["entries"]
    guard = [e for e in entries if e["code"] == "CTG114"]
    assert len(guard) == 1 and guard[0]["line"] == 5
    assert [c["line"] for c in guard[0]["called_from"]][:3] == [9, 17, 22]
    assert guard[0]["made_non_contiguous_at"][0]["line"] == 17


def test_runtime_watch_reports_custom_op_and_all_gather_input(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent('''\
        import os, tempfile
        import torch
        import torch.distributed as dist

        @torch.library.custom_op("ctgtest::double", mutates_args=())
        def double(x: torch.Tensor) -> torch.Tensor:
            return x * 2

        h = torch.randn(4, 6)
        torch.ops.ctgtest.double(h.t())
        torch.ops.ctgtest.double(h)
        with tempfile.TemporaryDirectory() as folder:
            dist.init_process_group("gloo", init_method=f"file://{folder}/s", rank=0,
                                    world_size=1)
            dist.all_gather([torch.empty(6, 4)], h.t())
            dist.all_gather([torch.empty(4, 6)], h)
            dist.destroy_process_group()
    '''))
    report = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "contiglint.runtime", "--format", "json", "--output",
                    str(report), str(script)], cwd=tmp_path, env=environment(), check=True,
                   timeout=300)
    found = {(e["code"], e["line"]) for e in json.loads(report.read_text())["entries"]}
    assert ("CTG114", 10) in found and ("CTG107", 15) in found
    assert not {line for _, line in found} & {11, 16}


STRIDE_CASES = ["torch.randn(4, 6)", "torch.randn(4, 6).t()", "torch.randn(4, 6)[:, :3]",
                "torch.randn(4, 6)[:, ::2]", "torch.randn(3, 4, 6).transpose(0, 1)",
                "torch.randn(3, 4, 6)[:, 1:3]", "torch.randn(4, 1).expand(4, 6)",
                "torch.randn(2, 3, 4).permute(0, 2, 1)"]


@pytest.mark.parametrize("made", STRIDE_CASES)
def test_decided_stride_checks_agree_with_torch(made):
    """A wrapper that copies only when a stride check fails, then views: the static verdict on
    the `.view(-1)` (CTG101) must be torch's (the view raises exactly when the check let a
    non-viewable tensor through)."""
    source = textwrap.dedent(f"""\
        import torch


        def wrapper(x):
            if x.stride(-1) != 1 or x.stride(-2) != x.shape[-1]:
                x = x.contiguous()
            return x.view(-1)


        def caller():
            return wrapper({made})
    """)
    namespace: dict = {}
    exec(compile(source, "m.py", "exec"), namespace)
    try:
        namespace["caller"]()
        raises = False
    except RuntimeError:
        raises = True
    assert ((7, "CTG101") in codes(source)) == raises


STRIDE_DISPATCH = '''\
import torch


def kernel(packed):
    assert packed.is_contiguous(), "packed must be contiguous"
    return packed * 2


def dequant(W, qs):
    if W.stride(-1) != 1 and W.dim() == 2 and W.shape[1] == qs.shape[0]:
        return kernel(W.t()).t()
    return kernel(W)


def dequant_t(P, qs):
    return dequant(P.t(), qs)
'''


def test_a_stride_test_that_picks_a_branch_is_no_contract():
    """`dequant` takes a weight or its transpose and tells them apart by a stride (as
    unsloth's int4 dequantize does): where the test holds, `W.t()` is the dense weight (not
    a transpose of a contiguous W, which the test rules out), and what the other branch needs
    of W is no contract of `dequant`'s: a transposed weight takes the first. Only the path
    the model can show stays: `P.t()` with a `qs` of another length reaches `kernel(W)`
    (line 12), which raises; with the matching length nothing does (run below)."""
    assert {line for line, code in codes(STRIDE_DISPATCH) if code == "CTG114"} == {12}
    namespace: dict = {}
    exec(compile(STRIDE_DISPATCH, "dispatch.py", "exec"), namespace)
    P = torch.randn(4, 6)
    assert torch.equal(namespace["dequant_t"](P, torch.zeros(4)), 2 * P.t())
    assert torch.equal(namespace["dequant"](P, torch.zeros(5)), 2 * P)
    with pytest.raises(AssertionError, match="must be contiguous"):
        namespace["dequant_t"](P, torch.zeros(5))


STRIDED_KERNELS = '''\
import torch


def flat(t):
    s = t.untyped_storage()
    out = torch.empty(0, dtype=t.dtype)
    out.set_(s, 0, (s.nbytes() // t.element_size(),), (1,))
    return out


class Ptr:
    def __init__(self, t, offset=None):
        self.flat = flat(t) if isinstance(t, torch.Tensor) else t
        self.offset = t.storage_offset() if offset is None else offset

    def __add__(self, offs):
        return Ptr(self.flat, self.offset + offs)


def jit(fn):
    class Kernel:
        def __getitem__(self, grid):
            def launch(*args):
                lowered = [Ptr(a) if isinstance(a, torch.Tensor) else a for a in args]
                for pid in range(grid[0]):
                    tl.pid = pid
                    fn(*lowered)
            return launch
    return Kernel()


class tl:
    pid = 0

    @staticmethod
    def program_id(axis):
        return tl.pid

    @staticmethod
    def load(ptr):
        return ptr.flat[ptr.offset]

    @staticmethod
    def store(ptr, value):
        ptr.flat[ptr.offset] = value


@jit
def double_rows(X, Y, N, stride_xm, stride_xn, stride_ym, stride_yn):
    pid = tl.program_id(0)
    cols = torch.arange(N)
    x = tl.load(X + pid * stride_xm + cols * stride_xn)
    tl.store(Y + pid * stride_ym + cols * stride_yn, 2 * x)


@jit
def double_rows_shared(X, Y, N, stride_m, stride_n):
    pid = tl.program_id(0)
    cols = torch.arange(N)
    x = tl.load(X + pid * stride_m + cols * stride_n)
    tl.store(Y + pid * stride_m + cols * stride_n, 2 * x)


def with_own_strides(x):
    y = torch.empty(x.shape)
    double_rows[(x.shape[0],)](x, y, x.shape[1], x.stride(0), x.stride(1),
                               y.stride(0), y.stride(1))
    return y


def with_input_strides(x):
    y = torch.empty(x.shape)
    double_rows_shared[(x.shape[0],)](x, y, x.shape[1], x.stride(0), x.stride(1))
    return y


def dense_sum(x):
    return float(flat(x)[x.storage_offset():x.storage_offset() + x.numel()].sum())


def main():
    h = torch.randn(4, 6)
    assert torch.equal(with_own_strides(h.t()), 2 * h.t())
    assert torch.equal(with_input_strides(h), 2 * h)
    assert not torch.equal(with_input_strides(h.t()), 2 * h.t())
    dense_sum(h[:, :3])


main()
'''


def test_runtime_raw_reads_that_pass_the_strides_along_are_quiet(tmp_path):
    """A launch passing a tensor's strides lets the kernel honour them (the script checks the
    values), so the raw read beneath it is no hazard; a kernel storing a fresh contiguous
    output with the input's strides is (CTG114 at the launch, values checked wrong), and so is
    a raw read with no strides at all (CTG106)."""
    script = tmp_path / "script.py"
    script.write_text(STRIDED_KERNELS)
    report = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "contiglint.runtime", "--format", "json", "--output",
                    str(report), str(script)], cwd=tmp_path, env=environment(), check=True,
                   timeout=300)
    entries = json.loads(report.read_text())["entries"]
    found = {(e["code"], e["line"]) for e in entries}
    assert found == {("CTG114", 73), ("CTG106", 5)}, found
    raw = next(e for e in entries if e["code"] == "CTG106")
    assert [c["line"] for c in raw["called_from"]] == [78, 86, 89]
    cross = next(e for e in entries if e["code"] == "CTG114")
    assert [c["line"] for c in cross["called_from"]] == [85, 89]
    assert cross["made_non_contiguous_at"][0]["line"] == 85
    assert "with the strides of `x`" in cross["note"]
    # statically: the launch that passes the output's own strides is not a contract either
    assert {line for line, code in codes(STRIDED_KERNELS) if code == "CTG114"} == {85, 86}


SAVED_FOR_BACKWARD = '''\
import torch


def bwd_kernel(g, x):
    assert x.is_contiguous(), "x must be contiguous"
    return g * x


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return bwd_kernel(grad, w), bwd_kernel(grad.contiguous(), x.contiguous())


def run(x, w):
    Scale.apply(x, w).sum().backward()
'''


def test_saved_for_backward_requirements_reach_the_apply_caller():
    """`ctx.save_for_backward(x, w)` in forward and `x, w = ctx.saved_tensors` in backward:
    what backward requires of `w` is required of the `w` passed to `Scale.apply` (the
    backward raises, run below); `x` is made contiguous in backward, so it is no contract."""
    caller = SAVED_FOR_BACKWARD + textwrap.dedent('''\


        h, g = torch.randn(4, 6, requires_grad=True), torch.randn(6, 4)
        run(h, h)
        run(h, h.t().t())
        Scale.apply(h.t(), h.t()).sum().backward()
        Scale.apply(g, h.t()).sum().backward()
    ''')
    result = lint_source(caller, "m.py", ALL)
    found = [(f.line, f.column) for f in result.findings if f.code == "CTG114"]
    # the `w` argument only (column of the second `h.t()`)
    assert found == [(28, 21), (29, 17)], found
    namespace: dict = {}
    exec(compile(SAVED_FOR_BACKWARD, "saved.py", "exec"), namespace)
    h = torch.randn(4, 6, requires_grad=True)
    dense = h.detach().t().contiguous()
    namespace["Scale"].apply(h.t(), dense).sum().backward()  # x non-contiguous: fine
    with pytest.raises(AssertionError, match="must be contiguous"):
        namespace["Scale"].apply(dense, h.t()).sum().backward()


DECORATED_BACKWARD = '''\
import torch
from torch.autograd.function import once_differentiable


def ensure_contiguous(fn):
    def wrapper(ctx, *args):
        return fn(ctx, *(a.contiguous() if isinstance(a, torch.Tensor) else a for a in args))
    return wrapper


def bwd_kernel(g):
    assert g.is_contiguous(), "g must be contiguous"
    return g * 2


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @{decorator}
    def backward(ctx, grad):
        return bwd_kernel(grad)
'''


@pytest.mark.parametrize("decorator, raises", [("once_differentiable", True),
                                               ("ensure_contiguous", False)])
def test_a_backward_under_an_unknown_decorator_gets_what_its_wrapper_passes(decorator, raises):
    """A custom autograd `backward` receives autograd's gradients only through decorators
    that pass arguments on unchanged (`once_differentiable`, run below: the gradient of a
    transposed use reaches the kernel as it is); a project's own decorator may hand it other
    tensors (this one makes them contiguous, as liger-kernel's `@ensure_contiguous` and fla's
    `@input_guard` do), so its parameters are not autograd's gradients."""
    text = DECORATED_BACKWARD.format(decorator=decorator)
    found = {line for line, code in codes(text) if code == "CTG114"}
    assert found == ({24} if raises else set()), found
    namespace: dict = {}
    exec(compile(text, "decorated.py", "exec"), namespace)
    x = torch.randn(4, 6, requires_grad=True)
    run = namespace["Double"].apply(x).t().sum().backward
    if raises:
        with pytest.raises(AssertionError, match="must be contiguous"):
            run()
    else:
        run()
        assert torch.equal(x.grad, torch.full((4, 6), 2.0))


CONTEXT_ATTRIBUTE = '''\
import torch
import fused_cuda


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.T = x.shape[1]
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return fused_cuda.backward(grad.contiguous(), ctx.T)
'''


def test_the_autograd_context_is_not_a_tensor(monkeypatch):
    """`ctx` in a custom Function's static methods is autograd's context object: `ctx.T`
    is what forward stored there (an int, run below), not the transpose of a tensor, so
    handing it to an extension function is no contract broken."""
    assert not [f for f in lint_source(CONTEXT_ATTRIBUTE, "m.py", ALL).findings
                if f.code == "CTG114"]
    received = []
    extension = type(sys)("fused_cuda")
    extension.backward = lambda grad, n: received.append(n) or grad * 2
    monkeypatch.setitem(sys.modules, "fused_cuda", extension)
    namespace: dict = {}
    exec(compile(CONTEXT_ATTRIBUTE, "context.py", "exec"), namespace)
    namespace["Scale"].apply(torch.randn(4, 6, requires_grad=True)).sum().backward()
    assert received == [6] and type(received[0]) is int


APPLY_FORMS = '''\
import torch


def kernel(g):
    assert g.is_contiguous(), "g must be contiguous"
    return g * 2


class Base(torch.autograd.Function):
    pass


class Double(Base):
    @staticmethod
    def forward(ctx, x):
        return kernel(x)

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class NewStyle(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return kernel(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def run(h):
    return Double.apply(h.t()), NewStyle.apply(h.t())
'''


def test_apply_binds_forward_with_and_without_the_context():
    """`Cls.apply(x)` runs `forward(ctx, x)`, or `forward(x)` where a `setup_context`
    takes the context: both forwards hand x to a kernel that asserts contiguity, and both
    raise on a transpose (run below), of a Function whose base is the project's own too."""
    found = sorted((f.line, f.column) for f in lint_source(APPLY_FORMS, "m.py", ALL).findings
                   if f.code == "CTG114")
    assert found == [(38, 26), (38, 49)], found
    namespace: dict = {}
    exec(compile(APPLY_FORMS, "apply.py", "exec"), namespace)
    for name in ("Double", "NewStyle"):
        with pytest.raises(AssertionError, match="must be contiguous"):
            namespace[name].apply(torch.randn(4, 6).t())



def test_apply_of_a_function_defined_in_another_module(tmp_path):
    """`from .functions import Double; Double.apply(x)`: the Function's `apply` requires what
    its `forward` requires, with and without the context, for callers in other modules; the
    program raises where it is reported (run below)."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "functions.py").write_text(APPLY_FORMS.split("\n\ndef run")[0] + "\n")
    (package / "model.py").write_text(
        "from .functions import Double, NewStyle\n\n\ndef run(h):\n"
        "    return Double.apply(h.t()), NewStyle.apply(h.t()), Double.apply(h)\n")
    result = contiglint("check", "--no-cache", "--format", "json", "--exit-zero", str(package),
                        cwd=tmp_path)
    found = [(f["path"].rsplit("/", 1)[-1], f["line"], f["column"], f["code"])
             for f in json.loads(result.stdout)]
    assert found == [("model.py", 5, 26, "CTG114"), ("model.py", 5, 49, "CTG114")], found
    script = ("import sys, torch\nsys.path.insert(0, sys.argv[1])\nfrom pkg.functions import "
              "Double, NewStyle\nh = torch.randn(4, 6)\nfor f in (Double, NewStyle):\n"
              "    f.apply(h)\n    try:\n        f.apply(h.t())\n    except AssertionError:\n"
              "        print('raised')\n")
    ran = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True,
                         text=True, env=environment(), check=True)
    assert ran.stdout.split() == ["raised", "raised"]


EXTENSION_CALLS = '''\
import torch
from torch.utils.cpp_extension import load

ext = load("fused", sources=["fused.cpp"])


def norm_fast(x):
    return ext.forward(x)
{elsewhere}

h = torch.randn(4, 6)
norm_fast(h.t())
ext.backward(h.t())
'''


def test_extension_calls_are_reported_in_strict_mode_or_when_the_module_makes_inputs_contiguous():
    plain = EXTENSION_CALLS.format(elsewhere="")
    careful = EXTENSION_CALLS.format(elsewhere="\n\ndef norm(x):\n    return ext.forward("
                                               "x.contiguous())\n")
    strict = Settings(select=("CTG1",), extend_select=PREVIEW, strict=True)
    assert {line for line, code in codes(plain) if code == "CTG114"} == set()
    assert {line for line, code in codes(plain, strict) if code == "CTG114"} == {12, 13}
    assert {line for line, code in codes(careful) if code == "CTG114"} == {16, 17}


def test_a_package_that_only_reexports_is_python_not_a_compiled_extension(tmp_path):
    """`pkg/color/__init__.py` defines no function and re-exports `to_gray` from a submodule:
    its name is still one of the project's Python modules, so a call of `pkg.color.to_gray`
    is not "a function of a compiled extension" (strict mode reported every such call), while
    `from . import _C` with no Python file behind it still is."""
    package = tmp_path / "pkg"
    (package / "color").mkdir(parents=True)
    (package / "__init__.py").write_text("def version():\n    return 1\n")
    (package / "color" / "__init__.py").write_text("from .gray import to_gray\n")
    (package / "color" / "gray.py").write_text("def to_gray(x):\n    return x.mean(0)\n")
    (package / "stitch.py").write_text(
        "import torch\nfrom pkg.color import to_gray\nfrom . import _C\n\n\n"
        "def run(image):\n    return to_gray(image.t()), _C.blend(image.t())\n")
    result = contiglint("check", "--strict", "--select", "CTG114", "--no-cache", "--format",
                        "json", "--exit-zero", str(package), cwd=tmp_path)
    findings = json.loads(result.stdout)
    assert [(f["line"], f["column"]) for f in findings] == [(7, 46)], findings
    assert "_C.blend" in findings[0]["message"]
