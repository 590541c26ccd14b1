"""Ground-truth checker for blind set13.

For every case file <code>/<NNN>_<name>.py it imports the file, runs main()
and verifies the expected behaviour with real torch:

* CTG101 hazard: main() raises RuntimeError (a view/stride error) and the
  innermost traceback frame inside the case file is the marked line.
* CTG108 hazard: either main() raises RuntimeError ("more than one element of
  the written-to tensor ...") at the marked line, or (alias writes that torch
  does not reject) a line-trace hook evaluates the written-to tensor of the
  marked statement right before it runs and finds internal overlap
  (a stride 0 over a dim of size > 1 or torch._debug_has_internal_overlap != 0).
  The marked line must actually execute.
* CTG106 / CTG103 hazard: Tensor.data_ptr / Tensor.untyped_storage /
  nn.Module.register_buffer / nn.Parameter are wrapped to record the calling
  line in the case file and whether the tensor was contiguous; the call at
  the marked line must have happened with a non-contiguous tensor.
* clean cases: main() runs without exception; for CTG106/CTG103 clean cases
  at least one recorded call exists and all recorded tensors are contiguous.
"""
import ast
import importlib.util
import os
import re
import sys
import traceback
import warnings

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = re.compile(r"#\s*hazard:\s*(CTG\d{3})\s*$")
VIEW_MSG = ("view size is not compatible", "must be 1 to view")
ALIAS_MSG = "more than one element of the written-to tensor"

warnings.filterwarnings("ignore")

# ---------------------------------------------------------------- recorders
RECORDS = []          # (filename, lineno, kind, contiguous)
_CURRENT = {"file": None}


def _record(kind, tensor, depth=2):
    f = sys._getframe(depth)
    if _CURRENT["file"] and os.path.abspath(f.f_code.co_filename) == _CURRENT["file"]:
        if isinstance(tensor, torch.Tensor):
            RECORDS.append((f.f_lineno, kind, bool(tensor.is_contiguous())))


_orig_data_ptr = torch.Tensor.data_ptr
_orig_untyped = torch.Tensor.untyped_storage
_orig_register_buffer = nn.Module.register_buffer
_orig_param_new = nn.Parameter.__new__


def _data_ptr(self, *a, **k):
    _record("data_ptr", self)
    return _orig_data_ptr(self, *a, **k)


def _untyped_storage(self, *a, **k):
    _record("untyped_storage", self)
    return _orig_untyped(self, *a, **k)


def _register_buffer(self, name, tensor, *a, **k):
    _record("register_buffer", tensor)
    return _orig_register_buffer(self, name, tensor, *a, **k)


def _param_new(cls, data=None, requires_grad=True):
    _record("Parameter", data)
    return _orig_param_new(cls, data, requires_grad)


torch.Tensor.data_ptr = _data_ptr
torch.Tensor.untyped_storage = _untyped_storage
nn.Module.register_buffer = _register_buffer
nn.Parameter.__new__ = staticmethod(_param_new)


# ------------------------------------------------------------- helpers
def overlapping(t):
    if not isinstance(t, torch.Tensor):
        return False
    if any(st == 0 and sz > 1 for st, sz in zip(t.stride(), t.shape)):
        return True
    return torch._debug_has_internal_overlap(t) != 0


def written_expr(src_line):
    """Return the source of the tensor written by the statement."""
    node = ast.parse(src_line.strip()).body[0]
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        tgt = node.targets[0] if isinstance(node, ast.Assign) else node.target
        if isinstance(tgt, ast.Subscript):
            return ast.unparse(tgt.value)
        if isinstance(node, ast.AugAssign):
            return ast.unparse(tgt)
        node = ast.Expr(node.value)
    call = node.value if isinstance(node, ast.Expr) else None
    if isinstance(call, ast.Call):
        for kw in call.keywords:
            if kw.arg == "out":
                return ast.unparse(kw.value)
        if isinstance(call.func, ast.Attribute):
            if call.func.attr.endswith("_"):
                recv = ast.unparse(call.func.value)
                if recv == "torch" and call.args:
                    return ast.unparse(call.args[0])
                return recv
    raise ValueError("cannot find written tensor in: " + src_line)


def load(path, idx):
    spec = importlib.util.spec_from_file_location(f"case_{idx}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_case(path, idx):
    lines = open(path).read().splitlines()
    marks = [(i + 1, m.group(1)) for i, l in enumerate(lines) for m in [MARK.search(l)] if m]
    code = os.path.basename(os.path.dirname(path)).upper()
    clean = path.endswith("_clean.py")
    if clean and marks:
        return False, "clean case carries a marker"
    if not clean and (len(marks) != 1 or marks[0][1] != code):
        return False, f"expected exactly one marker {code}, got {marks}"
    if "def main(" not in "\n".join(lines):
        return False, "no main()"
    mark_line = marks[0][0] if marks else None
    RECORDS.clear()
    _CURRENT["file"] = os.path.abspath(path)
    torch.manual_seed(0)
    trace_hits = []

    tracer = None
    if code == "CTG108" and not clean:
        try:
            expr = written_expr(lines[mark_line - 1])
        except (ValueError, SyntaxError):
            expr = None

        def local(frame, event, arg):
            if expr is not None and event == "line" and frame.f_lineno == mark_line:
                try:
                    t = eval(expr, frame.f_globals, dict(frame.f_locals))
                    trace_hits.append(overlapping(t))
                except Exception as e:  # noqa
                    trace_hits.append(f"eval failed: {e}")
            return local

        def glob(frame, event, arg):
            if os.path.abspath(frame.f_code.co_filename) == _CURRENT["file"]:
                return local
            return None
        tracer = glob

    exc = None
    try:
        mod = load(path, idx)
        if tracer:
            sys.settrace(tracer)
        try:
            mod.main()
        finally:
            sys.settrace(None)
    except Exception as e:  # noqa
        exc = e
    finally:
        _CURRENT["file"] = None

    def innermost_line(e):
        tb = traceback.extract_tb(e.__traceback__)
        mine = [fr for fr in tb if os.path.abspath(fr.filename) == os.path.abspath(path)]
        return mine[-1].lineno if mine else None

    if clean:
        if exc is not None:
            return False, f"clean case raised {type(exc).__name__}: {exc}"
        if code in ("CTG106", "CTG103"):
            if not RECORDS:
                return False, "clean case never reached a recorded sink"
            bad = [r for r in RECORDS if not r[2]]
            if bad:
                return False, f"clean case recorded non-contiguous sink {bad}"
        return True, "ran clean"

    if code == "CTG101":
        if not isinstance(exc, RuntimeError):
            return False, f"expected RuntimeError, got {exc!r}"
        if not any(m in str(exc) for m in VIEW_MSG):
            return False, f"unexpected message: {exc}"
        ln = innermost_line(exc)
        if ln != mark_line:
            return False, f"raised at line {ln}, marker at {mark_line}"
        return True, "raises view error at marker"

    if code == "CTG108":
        if exc is not None:
            if not isinstance(exc, RuntimeError) or ALIAS_MSG not in str(exc):
                return False, f"unexpected exception {exc!r}"
            ln = innermost_line(exc)
            if ln != mark_line:
                return False, f"raised at line {ln}, marker at {mark_line}"
            return True, "raises overlap error at marker"
        if expr is None:
            return False, "no exception and written tensor of marked line not identifiable"
        if not trace_hits:
            return False, "marked line never executed"
        if not all(h is True for h in trace_hits):
            return False, f"written tensor not overlapping: {trace_hits}"
        return True, f"silent alias write verified by trace ({len(trace_hits)} hits)"

    # CTG106 / CTG103
    if exc is not None:
        return False, f"hazard case raised {type(exc).__name__}: {exc}"
    at = [r for r in RECORDS if r[0] == mark_line]
    if not at:
        return False, f"no recorded sink at marker line {mark_line}: {RECORDS}"
    if any(r[2] for r in at):
        return False, f"sink at marker saw contiguous tensor: {at}"
    return True, f"non-contiguous tensor at {at[0][1]} on marker line"


def main():
    files = []
    for d in ("ctg101", "ctg108", "ctg106", "ctg103"):
        full = os.path.join(HERE, d)
        if os.path.isdir(full):
            files += [os.path.join(full, f) for f in sorted(os.listdir(full)) if f.endswith(".py")]
    only = sys.argv[1:]
    if only:
        files = [f for f in files if any(o in f for o in only)]
    n_h = n_c = ok = 0
    failures = []
    for i, f in enumerate(files):
        clean = f.endswith("_clean.py")
        n_c += clean
        n_h += not clean
        good, why = check_case(f, i)
        rel = os.path.relpath(f, HERE)
        print(f"{'PASS' if good else 'FAIL'}  {rel}: {why}")
        if good:
            ok += 1
        else:
            failures.append(rel)
    print()
    print(f"cases={len(files)} hazards={n_h} clean={n_c} verified={ok} failed={len(failures)}")
    for code in ("ctg101", "ctg108", "ctg106", "ctg103"):
        h = sum(1 for f in files if f"/{code}/" in f and not f.endswith("_clean.py"))
        c = sum(1 for f in files if f"/{code}/" in f and f.endswith("_clean.py"))
        print(f"  {code.upper()}: hazards={h} clean={c}")
    for f in failures:
        print("  FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
