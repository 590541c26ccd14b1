"""`contiglint run [options] script.py [args...]`: run a program under the watcher.

The script runs as `__main__` (like `python script.py`: same argv, same sys.path[0]) inside
`watch()`; when it ends, normally or by an exception, the report is written to stderr (or to
--output). The exit status is the script's own: 0, its SystemExit code, 1 if it died with an
exception (the traceback is printed as Python would), 130 on Ctrl-C. `--strict` also fails
(status 1) a script that succeeded but produced hazards, for CI.
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback
from typing import Optional, Sequence

_USAGE = "contiglint run [options] (script.py | -m module) [args...]"
_OPTIONS_WITH_VALUE = {"--format", "--output", "-o", "--include", "--library", "--backend"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="contiglint run", usage=_USAGE,
        description="Run a Python program and report where non-contiguous tensors reached "
                    "layout-sensitive torch ops in your code (implicit copies, failing views, "
                    "raw pointers, collectives, device moves, buffers, module outputs).")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--output", "-o", metavar="FILE",
                        help="write the report here instead of stderr")
    parser.add_argument("--include", action="append", default=[], metavar="PATH",
                        help="only report code in these files/directories (repeatable); "
                             "default: every file outside torch, site-packages and stdlib")
    parser.add_argument("--library", action="append", default=[], metavar="DIR",
                        help="treat this directory as library code too (repeatable)")
    parser.add_argument("--no-modules", action="store_true",
                        help="do not check nn.Module outputs (CTG202)")
    parser.add_argument("--explicit-copies", action="store_true",
                        help="also report copies made by an explicit .contiguous() (CTG201)")
    parser.add_argument("--no-children", action="store_true",
                        help="do not watch child processes (multiprocessing, "
                             "torch.multiprocessing.spawn, subprocess) started by the script")
    parser.add_argument("--backend", choices=("any", "nccl", "gloo"), default="any",
                        help="whose collective contracts to report (default any: what fails "
                             "or corrupts on NCCL or gloo, whatever backend the run uses)")
    parser.add_argument("--full", action="store_true",
                        help="watch every call of every step; by default every call is "
                             "watched until the steps' call signatures are stable, then one "
                             "step in 20 and steps with new input shapes (the report says "
                             "which)")
    parser.add_argument("--explain", action="store_true",
                        help="add why/fix to each entry, and what static analysis inferred "
                             "there next to the shape and strides torch made (a "
                             "disagreement is reported as a model error)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 if the script succeeded but hazards were found")
    parser.add_argument("-m", dest="module", metavar="MODULE", help="run a module, like python -m")
    return parser


def split_argv(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Our options come before the target; everything from the script name on is the script's
    (so `contiglint run train.py --format x` passes --format to train.py)."""
    argv = list(argv)
    index = 0
    while index < len(argv):
        token = argv[index]
        if token == "--":
            return argv[:index], argv[index + 1:]
        if token == "-m":
            return argv[:index + 2], argv[index + 2:]
        if not token.startswith("-"):
            return argv[:index], argv[index:]
        index += 2 if token in _OPTIONS_WITH_VALUE else 1
    return argv, []


def main(argv: Optional[Sequence[str]] = None) -> int:
    ours, target = split_argv(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    options = parser.parse_args(ours)
    if options.module is None and not target:
        parser.print_usage(sys.stderr)
        print("contiglint run: error: give a script to run (or -m module)", file=sys.stderr)
        return 2
    if options.module is None and not os.path.isfile(target[0]):
        print(f"contiglint run: error: no such script: {target[0]}", file=sys.stderr)
        return 2

    try:
        from contiglint.runtime.watcher import watch  # imports torch: only once we really run
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "torch":
            raise
        print("contiglint run: error: needs PyTorch, which is not installed; install it with "
              "`pip install 'contiglint[runtime]'` (or `pip install torch`)", file=sys.stderr)
        return 2
    watcher = watch(options.include or None, library=options.library,
                    modules=not options.no_modules, explicit_copies=options.explicit_copies,
                    children=not options.no_children, backend=options.backend,
                    full=options.full)
    status = _run(options.module, target, watcher)
    report = watcher.report
    text = report.to_json(options.explain) if options.format == "json" else \
        report.to_text(options.explain)
    if options.output:
        with open(options.output, "w", encoding="utf-8") as stream:
            stream.write(text + "\n")
    else:
        sys.stderr.flush()
        print(text, file=sys.stderr)
    if status == 0 and options.strict and len(report):
        return 1
    return status


def _run(module: Optional[str], target: list[str], watcher) -> int:
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    if module is not None:
        sys.argv = [module, *target]
        sys.path.insert(0, os.getcwd())
    else:
        sys.argv = list(target)
        sys.path.insert(0, os.path.dirname(os.path.abspath(target[0])))
    try:
        with watcher:
            if module is not None:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(target[0], run_name="__main__")
        return 0
    except SystemExit as exit_:
        return _exit_status(exit_.code)
    except KeyboardInterrupt:
        return 130
    except BaseException as error:  # noqa: BLE001 - the script's own failure, reported as such
        _print_script_traceback(error)
        return 1
    finally:
        sys.stdout.flush()
        sys.argv, sys.path[:] = saved_argv, saved_path


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _print_script_traceback(error: BaseException) -> None:
    """Print the traceback as `python script.py` would: without runpy's and contiglint's
    frames (the tracer sits between the user's line and torch)."""
    ours = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    hidden = (ours, os.path.abspath(runpy.__file__), "<frozen runpy>")
    report = traceback.TracebackException.from_exception(error)
    report.stack = traceback.StackSummary.from_list(
        [frame for frame in report.stack if not frame.filename.startswith(hidden)])
    sys.stdout.flush()
    print("".join(report.format()), end="", file=sys.stderr)
