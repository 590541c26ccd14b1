"""The op catalogue (contiglint/catalogue/): consistent, agreed on by the static and the
runtime side, true to torch, and complete against torch's own list of ops."""
from __future__ import annotations

import operator
import sys
import types
from pathlib import Path

import pytest
import torch

from contiglint.catalogue import collectives, coverage, inplace, ops, sinks, unmodelled
from contiglint.engine import lint_source
from contiglint.layout.model import op_transfers as layout_ops
from contiglint.rules import all_rules
from contiglint.runtime.hazards import HazardFinder
from contiglint.settings import Settings
from contiglint.verify import op_kinds
from contiglint.verify.frames import Site
from contiglint.verify.layout_summary import summarize
from contiglint.verify.observation import Argument, Observation
from tests.catalogue_probe import probe

CATALOGUE = Path(ops.__file__)


# --- built and checked when imported ------------------------------------------------------------
@pytest.mark.parametrize("field, entry", [
    ("method", ops.Entry(("transpose",), (), "breaks", "t")),
    ("function", ops.Entry((), ("torch.nn.functional.gelu",), "preserves", "preserve")),
    ("module", ops.Entry((), (), "preserves", "preserve", modules=("torch.nn.GELU",))),
])
def test_a_spelling_listed_twice_is_an_error(field, entry):
    with pytest.raises(ops.CatalogueError, match=f"the {field} spelling .* appears twice"):
        ops.check(ops.TABLE + (entry,))


def test_the_check_runs_when_the_catalogue_is_imported(monkeypatch):
    """The module itself, with one duplicated row added, fails to import."""
    source = CATALOGUE.read_text()
    marker = "TABLE: tuple[Entry, ...] = (\n"
    assert marker in source
    doubled = source.replace(marker, marker + '    Entry(("view",), (), "depends", "view"),\n')
    module = types.ModuleType("doubled")
    monkeypatch.setitem(sys.modules, "doubled", module)
    with pytest.raises(ValueError, match="'view' appears twice"):  # its own CatalogueError
        exec(compile(doubled, str(CATALOGUE), "exec"), module.__dict__)


def test_a_fact_about_an_unknown_op_is_an_error(monkeypatch):
    monkeypatch.setattr(ops, "KEEPS_RANK", ops.KEEPS_RANK | {"no_such_op"})
    with pytest.raises(ops.CatalogueError, match="KEEPS_RANK names ops the catalogue lacks"):
        ops.check(ops.TABLE)


def test_every_entry_names_a_transfer_of_the_layout_model():
    assert {e.transfer for e in ops.TABLE} <= layout_ops.TRANSFERS.keys()
    with pytest.raises(ops.CatalogueError, match="no layout transfer named 'nope'"):
        layout_ops._op(ops.Entry(("x",), (), "preserves", "nope"))


# --- static and runtime classify every entry alike ---------------------------------------------
def _static_codes(kind: str) -> set[str]:
    return {rule.code for rule in all_rules() if kind in rule.sinks}


def _layout(tensor: torch.Tensor):
    return summarize(tensor)


SITE = Site("user.py", 3, "f")
BROKEN = {  # a non-contiguous tensor of each kind the runtime checks look for
    "view": torch.zeros(4, 6).t(), "raw_memory": torch.zeros(4, 6)[:, ::2],
    "buffer": torch.zeros(4, 6).t(), "parameter": torch.zeros(4, 6).t(),
    "device_move": torch.zeros(4, 6).t(), "contiguous_call": torch.zeros(4, 6).t(),
}


@pytest.mark.parametrize("kind, op", sorted((k, op) for k in BROKEN for op in sinks.runtime(k)))
def test_runtime_sink_ops_fire_a_code_of_the_static_rules_of_their_sink(kind, op):
    """Every runtime name of a sink kind is watched, and a non-contiguous tensor there gives a
    code that a static rule reading that sink kind reports (CTG201 is the runtime's own
    copy report, the runtime side of `.contiguous()`)."""
    tensor = BROKEN[kind]
    layout = summarize(tensor)
    moved = layout._replace(device="cuda:0", storage_ptr=1, data_ptr=1)
    result = moved if kind == "device_move" else summarize(tensor.contiguous())
    obs = Observation(SITE, op, "op", True, (Argument("self", layout),), (result,),
                      error="RuntimeError" if kind == "view" else None)
    finder = HazardFinder(explicit_copies=True)
    codes = {h.code for h in finder.hazards(obs)}
    if kind == "device_move":  # no hazard by itself: at code that needs row-major memory
        assert codes == set(), (op, codes)
        viewed = Observation(SITE, "Tensor.view", "op", True, (Argument("self", moved),), (),
                             error="RuntimeError")
        codes = {h.code for h in finder.hazards(viewed)} - {"CTG101"}  # the view's own
    assert codes, f"{op} with a non-contiguous tensor: no runtime hazard"
    assert codes <= _static_codes(kind) | {"CTG201"}, (op, codes, _static_codes(kind))


SLOTS = [(op, s) for op, slots in collectives.COLLECTIVES.items() for s in slots]


@pytest.mark.parametrize("backend", collectives.BACKENDS)
@pytest.mark.parametrize("op, slot", SLOTS, ids=[f"{op}-{s.keyword}" for op, s in SLOTS])
def test_static_and_runtime_agree_on_each_collective_argument(op, slot, backend):
    static = collectives.hazard(op, slot.position, backend) is not None
    tensor = torch.zeros(4, 6).t()
    argument = Argument(slot.keyword, summarize(tensor))
    obs = Observation(SITE, sinks.DISTRIBUTED + op, "entry", True, (argument,), ())
    runtime = any(h.code == "CTG107" for h in HazardFinder(backend=backend).hazards(obs))
    assert static == runtime, (op, slot.keyword, backend, static, runtime)


def test_the_verifier_confirms_exactly_the_collectives_that_fail_on_gloo():
    """The verifier runs on CPU (gloo): it checks a collective iff the static table says some
    argument fails or corrupts there (reduce_scatter_tensor and the gathers do not)."""
    for op, slots in collectives.COLLECTIVES.items():
        static = any(collectives.hazard(op, s.position, "gloo") for s in slots)
        assert op_kinds.gloo_hazard(op) == static, op
    assert not op_kinds.gloo_hazard("reduce_scatter_tensor")
    assert not op_kinds.gloo_hazard("all_gather")


def test_static_ctg111_written_tensors_are_the_runtime_written_slots():
    from contiglint.rules.ctg111_inplace_on_temporary_copy import WRITTEN

    for op, slots in collectives.COLLECTIVES.items():
        single = [s for s in slots if s.writes and not s.is_list]
        assert WRITTEN.get(op) == ((single[0].position, single[0].keyword) if single else None)


INPLACE = sorted(n for n in dir(torch.Tensor) if n.endswith("_") and not n.startswith("_"))


def test_static_and_runtime_agree_on_every_inplace_method():
    """Each in-place method of torch.Tensor on an expanded tensor: the static CTG108 flags it
    exactly when the runtime watcher reports CTG108 for it (layout-only changes such as
    `transpose_` and flag setters such as `requires_grad_` write no element)."""
    lines = ["import torch", "", "def f(a, b, c):"]
    for name in INPLACE:
        lines.append(f"    torch.zeros(3, 1).expand(3, 4).{name}(a)")
    text = "\n".join(lines) + "\n"
    selected = Settings(extend_select=("CTG108",))  # a preview rule: selected by its code
    flagged = {f.line for f in lint_source(text, "m.py", selected).findings
               if f.code == "CTG108"}
    expanded = summarize(torch.zeros(3, 1).expand(3, 4))
    disagree = []
    for line, name in enumerate(INPLACE, start=4):
        obs = Observation(SITE, f"Tensor.{name}", "op", True, (Argument("self", expanded),), ())
        runtime = any(h.code == "CTG108" for h in HazardFinder().hazards(obs))
        if (line in flagged) != runtime:
            disagree.append((name, line in flagged, runtime))
    assert not disagree, f"(method, static, runtime): {disagree}"
    assert len(flagged) > 100  # most of them write


def test_one_inplace_rule_for_the_three_sides():
    assert op_kinds.is_inplace is inplace.writes_data
    assert inplace.inplace_kind("add_") == inplace.inplace_kind("Tensor.add_") == "data"
    assert inplace.inplace_kind("Tensor.transpose_") == "metadata"
    assert inplace.inplace_kind("Tensor.requires_grad_") is None
    assert inplace.inplace_kind("torch.nn.init.kaiming_normal_") == "data"
    assert inplace.inplace_kind("Tensor.__iadd__") == "data"
    assert inplace.inplace_kind("lock_") is None  # not a Tensor method (TensorDict's)


def test_one_element_size_table_true_to_torch():
    from contiglint.catalogue import dtypes
    from contiglint.layout.flow import calls
    from contiglint.rules import ctg101_view_on_noncontiguous as ctg101

    assert calls.ELEMENT_SIZE is dtypes.ELEMENT_SIZE
    for name, size in dtypes.ELEMENT_SIZE.items():
        assert getattr(torch, name).itemsize == size, name
    for method, size in ctg101.CONVERSIONS.items():
        assert getattr(torch.zeros(1), method)().element_size() == size, method


# --- true to torch: views ----------------------------------------------------------------------
# PyTorch's "Tensor Views" page (docs/source/tensor_view.rst), every op it lists
TENSOR_VIEWS = ("adjoint", "as_strided", "detach", "diagonal", "expand", "expand_as", "movedim",
                "narrow", "permute", "select", "squeeze", "transpose", "t", "T", "H", "mT", "mH",
                "real", "imag", "view_as_real", "unflatten", "unfold", "unsqueeze", "view",
                "view_as", "unbind", "split", "hsplit", "vsplit", "tensor_split",
                "split_with_sizes", "swapaxes", "swapdims", "chunk", "indices", "values")
SPARSE_PARTS = ("indices", "values")  # of a sparse tensor: dense contiguous tensors of their own


def test_every_op_of_the_tensor_views_page_is_a_view_entry():
    missing = []
    for name in TENSOR_VIEWS:
        entry = ops.method(name) or ops.function(f"torch.{name}")
        if entry is None or not (entry.view or name in SPARSE_PARTS):
            missing.append(name)
    assert not missing
    assert ops.method("indices").transfer == ops.method("values").transfer == "sparse_part"


def _x() -> torch.Tensor:
    return torch.randn(4, 6, 6, dtype=torch.complex64).permute(1, 0, 2)  # (6, 4, 6), permuted


VIEW_CALLS = {  # arguments that make each view op run on `_x()`
    "transpose": (0, 1), "swapaxes": (0, 1), "swapdims": (0, 1), "t": "matrix",
    "permute": ((2, 0, 1),),
    "movedim": (0, 2), "moveaxis": (0, 2), "narrow": (0, 1, 2), "select": (0, 1), "unbind": (),
    "split": (2,), "chunk": (2,), "tensor_split": (2,), "split_with_sizes": ([2, 4],),
    "hsplit": (2,), "vsplit": (2,), "dsplit": (2,), "diagonal": (), "expand": (2, 6, 4, 6),
    "expand_as": "zeros(2, 6, 4, 6)", "unfold": (0, 2, 1), "as_strided": ((2, 2), (1, 2)),
    "unsqueeze": (0,), "squeeze": (), "view": "contiguous-view", "view_as": "contiguous-view",
    "unflatten": (2, (2, 3)), "detach": (), "requires_grad_": "float", "detach_": "base",
    "positive": (), "conj": (), "adjoint": (), "mT": "attr", "mH": "attr", "T": "attr",
    "H": "matrix", "real": "attr", "imag": "attr", "data": "attr", "torch.real": (),
    "torch.imag": (),
    "torch.view_as_real": (), "torch.view_as_complex": "real-pairs", "torch.broadcast_to":
    ((2, 6, 4, 6),), "torch.broadcast_tensors": "zeros(2, 6, 4, 6)",
    "torch.meshgrid": "vectors",
}


def _view_spellings() -> list[str]:
    names = []
    for entry in ops.TABLE:
        if entry.view:
            names += list(entry.methods) + list(entry.functions)
    return names


def _run_view(name: str):
    args = VIEW_CALLS.get(name, VIEW_CALLS.get(name.removeprefix("torch."), ()))
    x = _x()
    if args == "float" or name in ("torch.requires_grad_",):
        x = x.real
    if args == "matrix":
        x, args = x[0], None if name != "H" else args
    if args == "base":
        x, args = torch.randn(6, 4), ()
    if args in ("contiguous-view",):
        x = torch.randn(6, 4, 6)
        return x, (x.view(-1) if name == "view" else x.view_as(torch.zeros(144)))
    if args == "real-pairs":
        x = torch.randn(3, 2)
        return x, torch.view_as_complex(x)
    if args == "vectors":
        a, b = torch.arange(3.), torch.arange(4.)
        return a, torch.meshgrid(a, b, indexing="ij")[0]
    if isinstance(args, str) and args.startswith("zeros"):
        other = torch.zeros(2, 6, 4, 6)
        if name.startswith("torch."):
            return x, operator.attrgetter(name[6:])(torch)(x, other)[0]
        return x, getattr(x, name)(other)
    if args in ("attr", "matrix"):
        return x, getattr(x, name)
    if name.startswith("torch."):
        function = operator.attrgetter(name[6:])(torch)
        return x, function(x, *(args or ()))
    member = getattr(x, name)
    return x, member() if args in (None, "float") else member(*args)


@pytest.mark.parametrize("name", _view_spellings())
def test_view_entries_are_views_under_torch(name):
    """An entry marked `view` returns (each piece of) its input's memory, never a copy."""
    x, result = _run_view(name)
    pieces = result if isinstance(result, (tuple, list)) else (result,)
    base = x.untyped_storage().data_ptr()
    assert pieces and all(p.untyped_storage().data_ptr() == base for p in pieces), name


def test_copies_if_needed_are_not_marked_as_views():
    for name in ops.COPIES_IF_NEEDED & ops.METHODS.keys():
        assert not ops.method(name).view, name
    x = torch.randn(4, 6).t()
    for name in ("reshape", "flatten", "contiguous"):
        y = getattr(x, name)(-1) if name == "reshape" else getattr(x, name)()
        assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr(), name


# --- complete against torch -------------------------------------------------------------------
TORCH_VERSION = ".".join(torch.__version__.split(".")[:2])
same_torch = pytest.mark.skipif(TORCH_VERSION != unmodelled.TORCH, reason=(
    f"the unmodelled list was drawn from torch {unmodelled.TORCH}'s ops, this is "
    f"{torch.__version__}"))


@same_torch
def test_every_public_torch_op_is_modelled_or_listed_with_a_reason():
    public = coverage.torch_ops()
    neither = sorted(n for n in public if not coverage.explained(n))
    assert not neither, f"torch ops neither in the catalogue nor in unmodelled.py: {neither}"
    both = sorted(n for n in unmodelled.NAMES if coverage.modelled(n))
    assert not both, f"modelled ops still listed as unmodelled: {both}"
    stale = sorted(unmodelled.NAMES - public)
    assert not stale, f"unmodelled.py lists names torch does not have: {stale}"
    assert unmodelled.WHY.keys() == unmodelled.MEASURED.keys()


MEASURED = sorted((group, name) for group, names in unmodelled.MEASURED.items()
                  for name in names)


@same_torch
@pytest.mark.parametrize("group, name", MEASURED)
def test_measured_groups_say_what_torch_does(group, name):
    assert probe(name) == group, unmodelled.WHY[group]


def test_the_probe_tells_layouts_apart():
    """The probe itself can fail: a view that keeps strides, a copy, a permuting view."""
    assert probe("neg") == "keeps-layout x"
    assert probe("torch.nn.functional.softmax").startswith("contiguous")
    assert probe("torch.linalg.qr") == "non-contiguous x"  # column-major factors
    assert probe("is_contiguous") == "no-tensor x"
    assert probe("torch.index_select") == "raises"


# --- rules read the parsed module from their context ------------------------------------------
MODULE_LEVEL = """\
import torch

x = torch.randn(4, 6).t()
dist_ready = x.data_ptr()
torch.zeros(3, 1).expand(3, 4).add_(1)
"""


def test_rules_neither_parse_the_source_again_nor_walk_the_tree(monkeypatch):
    """Module-level sinks with statement fixes: the source is parsed once (by the engine), and
    no rule walks the module to find a sink's statement."""
    import ast

    parsed, walked = [], []
    real_parse, real_walk = ast.parse, ast.walk
    monkeypatch.setattr(ast, "parse", lambda *a, **k: parsed.append(a[0]) or real_parse(*a, **k))
    result = lint_source(MODULE_LEVEL, "m.py", Settings(extend_select=("CTG106", "CTG108")))
    assert {f.code for f in result.findings} >= {"CTG106", "CTG108"}
    assert any(f.fix is not None for f in result.findings)  # found their statements
    # the source once; besides it only the statements a fix adds, checked to parse (bytes are
    # modules imported lazily, parsed by pytest's assertion rewriting of its plugins)
    texts = [text for text in parsed if isinstance(text, str)]
    assert texts.count(MODULE_LEVEL) == 1
    assert all(len(text) < 40 and "\n" not in text for text in texts if text != MODULE_LEVEL), \
        texts

    from contiglint.rules import statements

    tree = real_parse(MODULE_LEVEL)
    from contiglint.rules.base import ParsedModule

    module = ParsedModule(tree)
    module.parent(tree)  # the parent map: the one walk
    monkeypatch.setattr(ast, "walk", lambda node: walked.append(node) or real_walk(node))
    call = tree.body[2].value
    ctx = type("Ctx", (), {"module": module})()
    assert statements.innermost_statement(call, None, ctx) is tree.body[2]
    assert statements.innermost_statement(call, tree.body[2], ctx) is None  # not below it
    assert statements.parent_of(call.func, tree.body[2], ctx) is call
    assert not walked


def test_the_parsed_module_resolves_imports():
    import ast

    from contiglint.rules.base import ParsedModule

    tree = ast.parse("import torch.nn.functional as F\ny = F.gelu\n")
    module = ParsedModule(tree)
    assert module.names.qualname(tree.body[1].value) == "torch.nn.functional.gelu"


def test_every_device_dependent_layout_names_an_op_of_the_table():
    """catalogue.shapes.DEVICE_LAYOUTS lists the ops whose layout differs between the CPU and
    CUDA (measured by the op table run on a GPU, benchmarks/gpu_check.sh); each is a spelling
    the op table knows, so the transfer that makes it `maybe` is the one the name reaches."""
    from contiglint.catalogue import shapes as shape_facts
    from contiglint.layout.model import op_transfers

    for name in shape_facts.DEVICE_LAYOUTS:
        found = op_transfers.method(name) if "." not in name else \
            op_transfers.module(name) or op_transfers.function(name)
        assert found is not None, name
