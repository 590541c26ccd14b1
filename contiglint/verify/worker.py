"""The verifier's worker process: imports fixture programs and runs each case in a fork.

    python -m contiglint.verify.worker --device auto|cuda|cpu --case-timeout SECONDS

Reads one fixture path per line on stdin and answers each with a length-prefixed pickle of a
`FileRun` on the original stdout (fixture output is redirected to stderr so it cannot corrupt
the stream). torch is imported once per worker; each `case_*()` then runs in its own forked
child, so a crash, a hang (killed after the timeout) or leftover global state in one case
cannot affect another. The worker itself never initializes CUDA (the device check uses NVML),
so children may. Each child seeds every RNG identically, runs the case under the tracer
(restricted to the fixture's own lines), with the CUDA emulation when there is no GPU, and
sends back a `CaseRun`.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import os
import pickle
import random
import select
import signal
import struct
import sys
import time
import traceback
import warnings
from typing import Any, BinaryIO, Optional

os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")

import torch  # noqa: E402

from contiglint.verify.emulation import cuda_reported_available  # noqa: E402
from contiglint.verify.escapes import EscapeRecorder  # noqa: E402
from contiglint.verify.records import (  # noqa: E402
    CRASHED, RAISED, RETURNED, TIMEOUT, CaseRun, FileRun)

CUDA, EMULATED = "cuda", "cuda emulated on cpu"
_HEADER = struct.Struct("!Q")


def choose_device(requested: str) -> tuple[Optional[str], Optional[str]]:
    """(device label, error). `cpu` always emulates; `auto` uses a GPU when there is one."""
    available = torch.cuda.is_available()
    if requested == "cuda" and not available:
        return None, "--device cuda was requested but torch sees no CUDA device"
    return (CUDA if available and requested != "cpu" else EMULATED), None


def load_cases(path: str) -> tuple[Any, list[str]]:
    name = "contiglint_fixture_" + hashlib.sha1(path.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    cases = [key for key, value in vars(module).items()
             if key.startswith("case_") and callable(value)]
    return module, cases


def seed_everything() -> None:
    torch.manual_seed(0)
    random.seed(0)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(0)


def digest(value: Any, depth: int = 0) -> Any:
    """The returned value as comparable plain data: tensors detached on the CPU, modules as
    their state_dict, containers recursively, anything else by type name."""
    if depth > 20:
        return ("object", "too deep")
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().resolve_conj().resolve_neg()
    if isinstance(value, torch.nn.Module):
        return ("module", type(value).__qualname__, digest(value.state_dict(), depth + 1))
    if isinstance(value, dict):
        return {key: digest(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(digest(item, depth + 1) for item in value)
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return value
    if isinstance(value, (torch.dtype, torch.device, torch.memory_format)):
        return str(value)
    return ("object", type(value).__qualname__)


def execute(module: Any, case: str, path: str, emulate: bool) -> CaseRun:
    """Run one case under the tracer (and the emulation); exceptions are observations."""
    from contiglint.verify.emulation import CudaEmulation
    from contiglint.verify.tracer import Tracer

    seed_everything()
    emulation = CudaEmulation(files=[path]) if emulate else None
    tracing: set[int] = set()
    tracer: Tracer

    def note_tracing(observation) -> None:
        if torch.jit.is_tracing():
            tracing.add(len(tracer.observations) - 1)

    tracer = Tracer(files=[path], on_observation=note_tracing, callers=True)
    escapes = EscapeRecorder(path)
    status, error, value = RETURNED, None, None
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if emulation is not None:
            stack.enter_context(emulation)
        stack.enter_context(tracer)
        stack.enter_context(escapes)
        try:
            value = getattr(module, case)()
        except Exception as exc:  # noqa: BLE001 - a raising case is an observation
            status, error = RAISED, f"{type(exc).__name__}: {exc}"[:2000]
    seconds = time.perf_counter() - start
    try:
        value = digest(value)
        pickle.dumps(value)
    except Exception:  # noqa: BLE001
        value = ("object", type(value).__qualname__)
    return CaseRun(case, status, error, tracer.observations, escapes.observations,
                   frozenset(tracing), emulation.moves if emulation else [], value, seconds,
                   frozenset(escapes.lines))


def run_forked(module: Any, case: str, path: str, emulate: bool, timeout: float) -> CaseRun:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: run, send, and leave without running any parent cleanup
        os.close(read_end)
        try:
            try:
                data = pickle.dumps(execute(module, case, path, emulate))
            except BaseException:  # noqa: BLE001
                data = pickle.dumps(CaseRun(case, CRASHED, traceback.format_exc()[-2000:]))
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks, deadline, timed_out = [], time.monotonic() + timeout, False
    with os.fdopen(read_end, "rb", buffering=0) as source:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([source], [], [], left)[0]:
                timed_out = True
                break
            chunk = source.read(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return CaseRun(case, TIMEOUT, f"no result after {timeout:g} s (killed)")
    try:
        return pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 - the child died before sending a whole result
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else \
            f"exit status {os.WEXITSTATUS(status)}"
        return CaseRun(case, CRASHED, f"the case's process died ({how})")


_WARMED: set[str] = set()


def warm_up(path: str) -> None:
    """Pay the first-use cost of tracing and exporting (seconds: lazy imports, caches) once in
    this worker, not again in every forked case; and import the exporters before the tracer
    installs, so that it wraps them. Only for files that use them."""
    try:
        with open(path, encoding="utf-8") as source:
            text = source.read()
    except OSError:
        return
    tiny = torch.nn.Linear(2, 2)
    steps = (("jit", lambda: torch.jit.trace(tiny, torch.zeros(1, 2))),
             ("export", lambda: torch.export.export(tiny, (torch.zeros(1, 2),))),
             ("onnx", lambda: importlib.import_module("torch.onnx")))
    for word, step in steps:
        if word in text and word not in _WARMED:
            _WARMED.add(word)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    step()
            except Exception:  # noqa: BLE001 - only an optimization
                pass


def run_file(path: str, device: str, timeout: float) -> FileRun:
    warm_up(path)
    emulate = device == EMULATED
    with open(path, encoding="utf-8", errors="replace") as source:
        mentions_cuda = "cuda" in source.read()
    with cuda_reported_available() if emulate and mentions_cuda else contextlib.nullcontext():
        return _run_file(path, device, timeout, emulate)


def _run_file(path: str, device: str, timeout: float, emulate: bool) -> FileRun:
    try:
        module, cases = load_cases(path)
    except BaseException:  # noqa: BLE001 - a fixture that cannot be imported is reported
        return FileRun(path, device, error="cannot import: " + traceback.format_exc()[-1500:])
    if not hasattr(os, "fork"):  # no isolation available: run in this process
        return FileRun(path, device, [execute(module, c, path, emulate) for c in cases])
    return FileRun(path, device, [run_forked(module, c, path, emulate, timeout) for c in cases])


def send(out: BinaryIO, record: Any) -> None:
    data = pickle.dumps(record)
    out.write(_HEADER.pack(len(data)) + data)
    out.flush()


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="contiglint.verify.worker")
    parser.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto")
    parser.add_argument("--case-timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever the fixtures print goes to stderr, not into the result stream
    sys.stdout = sys.stderr
    torch.set_num_threads(1)  # tiny tensors; and no thread pool is alive across a fork
    device, error = choose_device(args.device)
    for line in sys.stdin:
        path = line.strip()
        if path:
            send(out, FileRun(path, device or "", error=error) if error
                 else run_file(path, device, args.case_timeout))
    return 0


if __name__ == "__main__":
    sys.exit(main())
