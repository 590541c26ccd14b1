"""Runtime truth for the eval cases of CTG102-CTG112 (layout hazards other than `.view`).

Each case file is executed in a fresh child process (``python tests/eval/truth_layout.py
CASE``) with torch instrumented; the child prints a JSON object ``{"events": {code:
[line, ...]}, "error": ...}``: the lines of the case file at which torch *showed* the
hazard while ``main()`` ran.  Nothing here reads contiglint; truth comes from torch only.

Instrumentation (all installed before the case module is imported):

* monkeypatched ``torch.Tensor`` methods (``contiguous``, ``reshape``, ``flatten``, ``to``,
  ``cpu``, ``data_ptr``, ``untyped_storage``, ``storage``, ``numpy``, ``is_contiguous``,
  ``stride``), ``nn.Parameter.__new__``, ``nn.Buffer.__new__``, ``nn.Module.register_buffer``,
  ``torch.save``, ``torch.jit.trace``/``trace_module``, ``torch.export.export`` and the
  ``torch.distributed`` collectives.  A call counts only when the frame that made it is the
  case file (so torch's own internal calls are ignored) and the event is charged to that
  frame's current line;
* a ``TorchFunctionMode`` that sees every in-place write (``*_`` methods, ``__setitem__``,
  ``x += y``, ``out=``, ``inplace=True``), charged to the innermost case-file frame;
* ``sys.settrace`` on case-file frames, used to decide what happened *after* a line finished:
  whether a result is still alive (kept) or was freed (a temporary), what a line stored on an
  attribute or appended to a list, what a function returned.

What each code must show at a hazard line (the checker):

CTG102  a view that is non-contiguous and covers less memory than its storage
        (``storage.nbytes() > numel*itemsize``) is, when the line finishes, (a) newly stored
        on an attribute of ``self``/of a case-defined object, (b) newly appended to a list
        that is an attribute, or a list argument, or a local list that the function then
        returns or stores on ``self``, or (c) returned by a method while sharing storage with
        a tensor attribute/buffer/parameter of ``self`` (a slice of the object's own state).
CTG103  the tensor given to ``nn.Parameter``/``nn.Buffer``/``register_buffer`` is
        non-contiguous and not channels_last (the rule exempts channels_last state).
CTG104  a device move (``.to(device, ...)`` with a device argument, ``.cpu()``).  CUDA is
        absent, so every such move is *performed as a copy* (``copy=True``), which is what a
        real host-to-device move does; the copy is non-contiguous and not channels_last, and
        its storage is still alive when the line finishes (the result is kept: bound,
        stored, returned or turned into a NumPy array).
CTG105  a ``torch.jit.trace``/``trace_module``/``torch.export.export`` call whose example
        inputs include a non-contiguous tensor (charged to the trace line); or, while a trace
        runs, ``is_contiguous()``/``stride()`` evaluated by case code on a line that is the
        test of an ``if``/``elif``/``while`` (the branch the trace freezes; charged there).
CTG106  ``data_ptr()``/``untyped_storage()``/``storage()`` (or ``numpy()`` on a line that
        takes ``.ctypes``) of a non-contiguous tensor, or a ``data_ptr()`` whose storage is
        freed by the time the line finishes (a dangling pointer of a temporary copy).
CTG107  ``all_reduce``/``broadcast``/``reduce``/``reduce_scatter``/``scatter``/
        ``all_to_all_single``/``send``/``recv``/``isend``/``irecv`` given a non-contiguous
        tensor (output or any input-list item).  Run on a 1-process gloo group.
CTG108  an in-place write whose target tensor has internal overlap (two indices, one
        address: a stride-0 dim, or overlapping windows).  The write raises or writes through.
CTG109  ``.contiguous()`` made a copy of the *same* unchanged tensor (same storage, offset,
        sizes, strides and version counter) at least twice in one activation of the
        function holding the call (i.e. once per loop iteration).
CTG110  ``.contiguous()`` (default format) of a 4-D tensor that is channels_last-contiguous
        and not contiguous, i.e. it copies channels_last to NCHW; excluded (as the rule
        says) when that tensor is a view of a row-major tensor (an explicit
        ``x.permute(0, 3, 1, 2)`` of NHWC data).
CTG111  an in-place write or in-place collective whose target is the result of a
        ``contiguous``/``reshape``/``flatten``/``to`` call that *copied* (the result shares no
        storage with its input, so the input is unchanged), and the copy is freed when the
        line finishes (the write is lost).
CTG112  ``torch.save`` of an object (a tensor, or a dict/list/tuple of them, one level)
        holding a tensor whose storage is larger than ``numel*itemsize``.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import json
import os
import sys
import tempfile
import time
import traceback
import warnings
import weakref
from collections import defaultdict

CODES = tuple(f"CTG{n}" for n in range(102, 113))


def _run_case(case: str) -> dict:
    import torch
    import torch.nn as nn
    from torch.multiprocessing.reductions import StorageWeakRef
    from torch.overrides import TorchFunctionMode

    warnings.simplefilter("ignore")
    case = os.path.abspath(case)
    src = open(case).read()
    tree = ast.parse(src)
    branch_test_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While)):
            for ln in range(node.test.lineno, (node.test.end_lineno or node.test.lineno) + 1):
                branch_test_lines.add(ln)
    src_lines = src.splitlines()

    T = torch.Tensor
    ORIG = {
        name: getattr(T, name)
        for name in ("contiguous", "reshape", "flatten", "to", "cpu", "data_ptr",
                     "untyped_storage", "storage", "numpy", "is_contiguous", "stride")
    }
    events: dict[str, set[int]] = defaultdict(set)
    st = {"suspended": 0, "tracing": 0}
    activation: dict[int, int] = {}
    counter = itertools.count(1)
    pending: dict[int, list] = defaultdict(list)  # id(frame) -> callbacks(event, arg)
    keep_alive: list = []

    def is_case(fr) -> bool:
        return fr is not None and fr.f_code.co_filename == case

    def innermost_case(fr):
        while fr is not None and not is_case(fr):
            fr = fr.f_back
        return fr

    def ev(code: str, line: int) -> None:
        events[code].add(line)

    def stor(t):
        return ORIG["untyped_storage"](t)

    def same_storage(a, b) -> bool:
        return stor(a).data_ptr() == stor(b).data_ptr()

    def nc(t) -> bool:
        return not ORIG["is_contiguous"](t)

    def channels_last(t) -> bool:
        return t.dim() == 4 and ORIG["is_contiguous"](t, memory_format=torch.channels_last)

    def partial_strided(t) -> bool:
        return (torch.is_tensor(t) and nc(t)
                and stor(t).nbytes() > t.numel() * t.element_size())

    def overlaps(t) -> bool:
        dims = sorted((abs(s), n) for s, n in zip(ORIG["stride"](t), t.shape) if n > 1)
        if t.numel() == 0:
            return False
        extent = 0
        for s, n in dims:
            if s <= extent:
                return True
            extent += s * (n - 1)
        return False

    def tensors_in(obj, depth=0):
        if torch.is_tensor(obj):
            yield obj
        elif depth < 3 and isinstance(obj, (list, tuple)):
            for o in obj:
                yield from tensors_in(o, depth + 1)
        elif depth < 3 and isinstance(obj, dict):
            for o in obj.values():
                yield from tensors_in(o, depth + 1)

    def direct(depth=2):
        fr = sys._getframe(depth)
        return fr if (is_case(fr) and not st["suspended"]) else None

    def later(fr, cb) -> None:
        pending[id(fr)].append(cb)

    # ---------------------------------------------------------------- copies (CTG111)
    copies: dict[int, weakref.ref] = {}

    def note_copy(t, res) -> None:
        if torch.is_tensor(res) and res is not t and not same_storage(t, res):
            copies[id(res)] = weakref.ref(res)

    def is_copy(t) -> bool:
        r = copies.get(id(t))
        return r is not None and r() is t

    def check_lost_write(target, fr) -> None:
        if not is_copy(target):
            return
        line = fr.f_lineno
        ref = StorageWeakRef(stor(target))

        def cb(event, arg, line=line, ref=ref):
            if released(ref):
                ev("CTG111", line)
        later(fr, cb)

    def released(ref, patience: float = 2.0) -> bool:
        """Is the storage freed once the line is done? A gloo collective's work object holds
        its tensor until its own thread lets go, which on a loaded machine can come a little
        after the call returns: a storage that no name keeps is freed within `patience`
        seconds; one that a name keeps is not (it costs that wait, once per kept copy)."""
        deadline = time.monotonic() + patience
        while not ref.expired():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    # ---------------------------------------------------------------- contiguous & co
    seen_copies: dict[tuple, int] = defaultdict(int)

    def contiguous(self, *args, **kwargs):
        fr = direct()
        res = ORIG["contiguous"](self, *args, **kwargs)
        if fr is not None:
            note_copy(self, res)
            mf = kwargs.get("memory_format", args[0] if args else torch.contiguous_format)
            if (mf is torch.contiguous_format and channels_last(self) and nc(self)
                    and not (self._base is not None and ORIG["is_contiguous"](self._base))):
                ev("CTG110", fr.f_lineno)
            if res is not self:
                s = stor(self)
                keep_alive.append(s)
                key = (activation.get(id(fr)), fr.f_lineno, s._cdata, self.storage_offset(),
                       tuple(self.shape), tuple(ORIG["stride"](self)), self._version)
                seen_copies[key] += 1
                if seen_copies[key] >= 2:
                    ev("CTG109", fr.f_lineno)
        return res

    def reshape(self, *args, **kwargs):
        fr = direct()
        res = ORIG["reshape"](self, *args, **kwargs)
        if fr is not None:
            note_copy(self, res)
        return res

    def flatten(self, *args, **kwargs):
        fr = direct()
        res = ORIG["flatten"](self, *args, **kwargs)
        if fr is not None:
            note_copy(self, res)
        return res

    def device_arg(args, kwargs):
        if "device" in kwargs:
            return kwargs["device"]
        if args and isinstance(args[0], (str, torch.device, int)) and not isinstance(args[0], bool):
            return args[0]
        return None

    def after_move(fr, res) -> None:
        if nc(res) and not channels_last(res):
            line = fr.f_lineno
            ref = StorageWeakRef(stor(res))

            def cb(event, arg, line=line, ref=ref):
                if not ref.expired():
                    ev("CTG104", line)
            later(fr, cb)

    def to(self, *args, **kwargs):
        fr = direct()
        if fr is None:
            return ORIG["to"](self, *args, **kwargs)
        dev = device_arg(args, kwargs)
        if dev is not None and "copy" not in kwargs:
            kwargs = dict(kwargs, copy=True)  # a real device move always copies
        res = ORIG["to"](self, *args, **kwargs)
        note_copy(self, res)
        if dev is not None:
            after_move(fr, res)
        return res

    def cpu(self, *args, **kwargs):
        fr = direct()
        if fr is None:
            return ORIG["cpu"](self, *args, **kwargs)
        res = ORIG["to"](self, "cpu", copy=True, **kwargs)
        note_copy(self, res)
        after_move(fr, res)
        return res

    # ---------------------------------------------------------------- raw memory (CTG106)
    def data_ptr(self):
        fr = direct()
        if fr is not None:
            if nc(self):
                ev("CTG106", fr.f_lineno)
            line = fr.f_lineno
            ref = StorageWeakRef(stor(self))

            def cb(event, arg, line=line, ref=ref):
                if ref.expired():
                    ev("CTG106", line)
            later(fr, cb)
        return ORIG["data_ptr"](self)

    def untyped_storage(self):
        fr = direct()
        if fr is not None and nc(self):
            ev("CTG106", fr.f_lineno)
        return ORIG["untyped_storage"](self)

    def storage(self):
        fr = direct()
        if fr is not None and nc(self):
            ev("CTG106", fr.f_lineno)
        return ORIG["storage"](self)

    def numpy(self, *args, **kwargs):
        fr = direct()
        if fr is not None and nc(self) and ".ctypes" in src_lines[fr.f_lineno - 1]:
            ev("CTG106", fr.f_lineno)
        return ORIG["numpy"](self, *args, **kwargs)

    # ---------------------------------------------------------------- layout queries (CTG105)
    def is_contiguous(self, *args, **kwargs):
        if st["tracing"]:
            fr = sys._getframe(1)
            if is_case(fr) and fr.f_lineno in branch_test_lines:
                ev("CTG105", fr.f_lineno)
        return ORIG["is_contiguous"](self, *args, **kwargs)

    def stride(self, *args, **kwargs):
        if st["tracing"]:
            fr = sys._getframe(1)
            if is_case(fr) and fr.f_lineno in branch_test_lines:
                ev("CTG105", fr.f_lineno)
        return ORIG["stride"](self, *args, **kwargs)

    for name, fn in [("contiguous", contiguous), ("reshape", reshape), ("flatten", flatten),
                     ("to", to), ("cpu", cpu), ("data_ptr", data_ptr),
                     ("untyped_storage", untyped_storage), ("storage", storage),
                     ("numpy", numpy), ("is_contiguous", is_contiguous), ("stride", stride)]:
        setattr(T, name, fn)

    # ---------------------------------------------------------------- module state (CTG103)
    def state_check(t, depth=3):
        fr = direct(depth)
        if fr is not None and torch.is_tensor(t) and nc(t) and not channels_last(t):
            ev("CTG103", fr.f_lineno)

    orig_param_new = nn.Parameter.__new__

    def param_new(cls, data=None, requires_grad=True):
        state_check(data)
        return orig_param_new(cls, data, requires_grad)
    nn.Parameter.__new__ = staticmethod(param_new)

    if hasattr(nn, "Buffer"):
        orig_buffer_new = nn.Buffer.__new__

        def buffer_new(cls, data=None, *, persistent=True):
            state_check(data)
            return orig_buffer_new(cls, data, persistent=persistent)
        nn.Buffer.__new__ = staticmethod(buffer_new)

    orig_register_buffer = nn.Module.register_buffer

    def register_buffer(self, name, tensor, persistent=True):
        state_check(tensor)
        return orig_register_buffer(self, name, tensor, persistent)
    nn.Module.register_buffer = register_buffer

    # ---------------------------------------------------------------- save (CTG112)
    orig_save = torch.save

    def save(obj, f, *args, **kwargs):
        fr = direct()
        if fr is not None:
            items = [obj] if torch.is_tensor(obj) else (
                list(obj.values()) if isinstance(obj, dict) else
                list(obj) if isinstance(obj, (list, tuple)) else [])
            if any(torch.is_tensor(t) and stor(t).nbytes() > t.numel() * t.element_size()
                   for t in items):
                ev("CTG112", fr.f_lineno)
        return orig_save(obj, f, *args, **kwargs)
    torch.save = save

    # ---------------------------------------------------------------- trace/export (CTG105)
    def wrap_trace(orig, get_examples):
        def traced(*args, **kwargs):
            fr = direct()
            if fr is None:
                return orig(*args, **kwargs)
            if any(nc(t) for t in tensors_in(get_examples(args, kwargs))):
                ev("CTG105", fr.f_lineno)
            st["suspended"] += 1
            st["tracing"] += 1
            mode.__exit__(None, None, None)
            try:
                return orig(*args, **kwargs)
            finally:
                mode.__enter__()
                st["tracing"] -= 1
                st["suspended"] -= 1
        return traced

    torch.jit.trace = wrap_trace(torch.jit.trace, lambda a, k: [
        a[1] if len(a) > 1 else k.get("example_inputs"), k.get("example_kwarg_inputs")])
    torch.jit.trace_module = wrap_trace(torch.jit.trace_module, lambda a, k: [
        a[1] if len(a) > 1 else k.get("inputs")])
    import torch.export
    torch.export.export = wrap_trace(torch.export.export, lambda a, k: [
        a[1] if len(a) > 1 else k.get("args"), a[2] if len(a) > 2 else k.get("kwargs")])

    # ---------------------------------------------------------------- distributed (CTG107/111)
    import torch.distributed as dist
    DIST = {
        "all_reduce": lambda a, k: [a[0] if a else k.get("tensor")],
        "broadcast": lambda a, k: [a[0] if a else k.get("tensor")],
        "reduce": lambda a, k: [a[0] if a else k.get("tensor")],
        "send": lambda a, k: [a[0] if a else k.get("tensor")],
        "recv": lambda a, k: [a[0] if a else k.get("tensor")],
        "isend": lambda a, k: [a[0] if a else k.get("tensor")],
        "irecv": lambda a, k: [a[0] if a else k.get("tensor")],
        "reduce_scatter": lambda a, k: [a[0] if a else k.get("output"),
                                        *(a[1] if len(a) > 1 else k.get("input_list") or [])],
        "scatter": lambda a, k: [a[0] if a else k.get("tensor"),
                                 *((a[1] if len(a) > 1 else k.get("scatter_list")) or [])],
        "all_to_all_single": lambda a, k: [a[0] if a else k.get("output"),
                                           a[1] if len(a) > 1 else k.get("input")],
    }
    WRITES = {"all_reduce", "broadcast", "reduce", "recv", "irecv", "reduce_scatter", "scatter",
              "all_to_all_single"}

    def wrap_dist(name, orig, get):
        def op(*args, **kwargs):
            fr = direct()
            if fr is not None:
                ts = [t for t in get(args, kwargs) if torch.is_tensor(t)]
                if any(nc(t) for t in ts):
                    ev("CTG107", fr.f_lineno)
                if name in WRITES and ts:
                    check_lost_write(ts[0], fr)
            return orig(*args, **kwargs)
        return op

    for name, get in DIST.items():
        if hasattr(dist, name):
            setattr(dist, name, wrap_dist(name, getattr(dist, name), get))

    # ---------------------------------------------------------------- in-place writes (CTG108/111)
    NOT_WRITES = {"requires_grad_", "share_memory_", "retain_grad", "set_", "resize_",
                  "resize_as_", "record_stream"}

    def inplace_target(func, args, kwargs):
        name = getattr(func, "__name__", "")
        out = kwargs.get("out")
        if torch.is_tensor(out):
            return out
        if not args or not torch.is_tensor(args[0]):
            return None
        if name == "__setitem__" or name.startswith("__i"):
            return args[0]
        if name.endswith("_") and not name.startswith("_") and name not in NOT_WRITES:
            return args[0]
        if kwargs.get("inplace") is True:
            return args[0]
        return None

    class InplaceMode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if not st["suspended"]:
                target = inplace_target(func, args, kwargs)
                if target is not None:
                    fr = innermost_case(sys._getframe(1))
                    if fr is not None:
                        if overlaps(target):
                            ev("CTG108", fr.f_lineno)
                        check_lost_write(target, fr)
            return func(*args, **kwargs)

    mode = InplaceMode()

    # ---------------------------------------------------------------- stores (CTG102)
    attr_seen: dict[tuple, object] = {}   # (id(obj), name) -> value
    list_seen: dict[int, tuple] = {}      # id(list) -> (list, set(ids), [refs])
    objs_alive: list = []
    case_module_name = "__eval_case__"

    def user_obj(v) -> bool:
        return (hasattr(v, "__dict__") and not isinstance(v, type)
                and type(v).__module__ == case_module_name)

    def scan(fr, line, local_adds):
        """Compare what the frame can see with the global baseline; charge changes to line."""
        loc = fr.f_locals
        me = loc.get("self")
        objs = [v for v in loc.values() if user_obj(v)]
        if me is not None and user_obj(me) is False and isinstance(me, nn.Module):
            objs.append(me)
        code = fr.f_code
        argnames = set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
        lists = []  # (list, kind)
        for o in objs:
            d = o.__dict__
            items = list(d.items())
            if isinstance(d.get("_buffers"), dict):
                items += list(d["_buffers"].items())
            for k, v in items:
                key = (id(o), k)
                if torch.is_tensor(v):
                    old = attr_seen.get(key)
                    if old is not v:
                        if key in attr_seen or line is not None:
                            if line is not None and partial_strided(v):
                                ev("CTG102", line)
                        attr_seen[key] = v
                        objs_alive.append(o)
                elif isinstance(v, list):
                    lists.append((v, "attr"))
        for k, v in loc.items():
            if isinstance(v, list):
                lists.append((v, "arg" if k in argnames else "local"))
        kinds: dict[int, str] = {}
        for lst, kind in lists:
            if kinds.get(id(lst)) != "attr":
                kinds[id(lst)] = kind if kinds.get(id(lst)) != "arg" or kind == "attr" else "arg"
        done = set()
        for lst, _ in lists:
            if id(lst) in done:
                continue
            done.add(id(lst))
            kind = kinds[id(lst)]
            rec = list_seen.get(id(lst))
            cur = {id(t) for t in lst if torch.is_tensor(t)}
            if rec is None or rec[0] is not lst:
                list_seen[id(lst)] = (lst, cur, [t for t in lst if torch.is_tensor(t)])
                continue
            new = [t for t in lst if torch.is_tensor(t) and id(t) not in rec[1]]
            list_seen[id(lst)] = (lst, cur, [t for t in lst if torch.is_tensor(t)])
            if line is None:
                continue
            for t in new:
                if partial_strided(t):
                    if kind in ("attr", "arg"):
                        ev("CTG102", line)
                    else:
                        local_adds.append((lst, t, line))

    fstate: dict[int, list] = {}

    def complete(fr, event, arg):
        stt = fstate.get(id(fr))
        if stt is None:
            return
        line = stt[0]
        for cb in pending.pop(id(fr), []):
            try:
                cb(event, arg)
            except Exception:
                traceback.print_exc()
        scan(fr, line, stt[1])

    def finish(fr, retval):
        stt = fstate.pop(id(fr), None)
        activation.pop(id(fr), None)
        if stt is None:
            return
        me = fr.f_locals.get("self")
        state_tensors = []
        if me is not None and hasattr(me, "__dict__"):
            d = me.__dict__
            vals = list(d.values())
            for sub in ("_buffers", "_parameters"):
                if isinstance(d.get(sub), dict):
                    vals += list(d[sub].values())
            state_tensors = [v for v in vals if torch.is_tensor(v)]
            stored = [v for v in vals if isinstance(v, list)]
        else:
            stored = []
        rets = [retval] + (list(retval) if isinstance(retval, (tuple, list)) else [])
        for lst, t, line in stt[1]:
            escapes = any(r is lst for r in rets) or any(s is lst for s in stored)
            if escapes and any(x is t for x in lst):
                ev("CTG102", line)
        if me is not None:
            for r in rets:
                if partial_strided(r) and any(same_storage(r, s) for s in state_tensors):
                    ev("CTG102", fr.f_lineno)

    def local_trace(fr, event, arg):
        if event == "line":
            complete(fr, event, arg)
            fstate[id(fr)][0] = fr.f_lineno
        elif event == "return":
            complete(fr, event, arg)
            finish(fr, arg)
        return local_trace

    def global_trace(fr, event, arg):
        if fr.f_code.co_filename != case:
            return None
        if event == "call":
            activation[id(fr)] = next(counter)
            fstate[id(fr)] = [None, []]
            scan(fr, None, [])
            return local_trace
        return None

    # ---------------------------------------------------------------- run
    error = None
    spec = importlib.util.spec_from_file_location(case_module_name, case)
    module = importlib.util.module_from_spec(spec)
    sys.modules[case_module_name] = module
    old_cwd = os.getcwd()
    tmp = tempfile.mkdtemp(prefix="eval_truth_")
    os.chdir(tmp)
    mode.__enter__()
    sys.settrace(global_trace)
    try:
        spec.loader.exec_module(module)
        module.main()
    except BaseException as exc:  # noqa: BLE001 - the case may legitimately raise
        tb = traceback.extract_tb(exc.__traceback__)
        lines = [f.lineno for f in tb if os.path.abspath(f.filename) == case]
        error = {"type": type(exc).__name__, "message": str(exc).splitlines()[0] if str(exc) else "",
                 "line": lines[-1] if lines else None}
    finally:
        sys.settrace(None)
        try:
            mode.__exit__(None, None, None)
        except Exception:
            pass
        os.chdir(old_cwd)
    try:
        if dist.is_initialized():
            dist.destroy_process_group()
    except Exception:
        pass
    return {"events": {c: sorted(events.get(c, ())) for c in CODES if events.get(c)},
            "error": error}


def truth(case) -> dict:
    """Run one case in a fresh interpreter; return {"events": {code: [lines]}, "error": ...}."""
    import subprocess
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), str(case)],
                          capture_output=True, text=True, timeout=300)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"events": {}, "error": {"type": "ChildFailed", "message": proc.stderr[-2000:],
                                    "line": None}}


def check(code: str, case) -> set[int]:
    """The checker for one code: the lines of `case` where torch showed `code`'s hazard."""
    res = truth(case)
    return set(res["events"].get(code, ())), res.get("error")


if __name__ == "__main__":
    out = _run_case(sys.argv[1])
    sys.stdout.flush()
    print(json.dumps(out))
    sys.stdout.flush()
    os._exit(0)


# ------------------------------------------------------------------- run_truth.py glue
_CACHE: dict = {}


def _cached_truth(path) -> dict:
    key = os.path.realpath(str(path))
    if key not in _CACHE:
        _CACHE[key] = truth(key)
    return _CACHE[key]


def make_checker(code: str, CheckOutcome):
    """A run_truth checker for `code`: the instrumented run's event lines must equal the
    case's markers for `code`.  It runs on the cases of tests/eval/<code>/ (clean ones too)
    and on any other case that marks `code`; it explains an exception raised at a line where
    the hazard was observed (e.g. CTG108's overlap error, CTG107's all_to_all_single)."""

    def check(case, result):
        marked = sorted(case.markers.get(code, []))
        if case.path.parent.name != code.lower() and not marked:
            return CheckOutcome()
        res = _cached_truth(case.path)
        seen = sorted(res["events"].get(code, []))
        out = CheckOutcome()
        err = res.get("error")
        if err and err.get("type") == "ChildFailed":
            out.problems.append(f"{code}: instrumented run failed: {err.get('message', '')[-300:]}")
            return out
        missing = [ln for ln in marked if ln not in seen]
        extra = [ln for ln in seen if ln not in marked]
        if missing:
            out.problems.append(f"{code}: marked {missing} but torch showed no {code} hazard there"
                                f" (observed: {seen or 'none'})")
        if extra:
            out.problems.append(f"{code}: torch showed the {code} hazard at unmarked line(s) {extra}")
        if result.get("raised") and result.get("case_line") in seen and result.get("case_line") in marked:
            out.explains_exception = True
        return out

    return check


def register_all(register, CheckOutcome) -> None:
    for code in CODES:
        register(code, make_checker(code, CheckOutcome), always=True)
