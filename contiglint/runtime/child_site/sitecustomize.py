"""Loaded at start-up by every Python interpreter that a program under `contiglint run` starts
(this directory is first on the PYTHONPATH it inherits). It does nothing unless the
CONTIGLINT_RUNTIME_CHILD variable is set, and then only arranges for the watcher to start once
the child imports torch (see contiglint.runtime.children), so children that never use torch
pay nothing. Whatever happens, the `sitecustomize` this one shadows still runs after it.
"""
import importlib.machinery
import importlib.util
import os
import sys


def _start_contiglint() -> None:
    if not os.environ.get("CONTIGLINT_RUNTIME_CHILD"):
        return
    here = os.path.dirname(os.path.abspath(__file__))
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    added = package_root not in sys.path
    if added:
        sys.path.append(package_root)  # last: an installed contiglint still wins
    try:
        from contiglint.runtime.children import start_when_torch_is_imported
        start_when_torch_is_imported()
    except Exception as error:  # noqa: BLE001 - never break the user's child process
        print(f"contiglint run: cannot watch child process {os.getpid()}: {error}",
              file=sys.stderr)


def _run_shadowed_sitecustomize() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    others = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_start_contiglint()
_run_shadowed_sitecustomize()
