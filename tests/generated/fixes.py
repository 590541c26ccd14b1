"""Safe fixes, proven on the generated programs: a fix marked safe must keep behaviour.

Every rule is selected, in default and in strict mode, and `fix_source` applies the safe fixes
(as `contiglint --fix` does). The fixed program and the original then run for each size
assignment from the same random input. Where the original runs, the fixed one must run too
(`safe fix raises`) and every tensor and number it binds must be equal
(`safe fix changes values`); raw pointers (`.data_ptr()` probes) are left out, since a copy
has another address. Where the original raises, a fix may make it run. A fix that removes a
`.contiguous()` CTG113 proved redundant is what this catches: the view after it raises when the
tensor was not contiguous for some size.
"""
from __future__ import annotations

from typing import Optional

import torch

from contiglint.engine import fix_source
from contiglint.rules.registry import RULES
from contiglint.settings import Settings
from tests.generated.programs import Program, environment

EVERY_RULE = tuple(sorted(RULES))
MODES = {"default": Settings(select=EVERY_RULE), "strict": Settings(select=EVERY_RULE,
                                                                      strict=True)}
ERRORS = (RuntimeError, ValueError, IndexError, TypeError)


def fixed_sources(program: Program) -> dict[str, str]:
    """mode -> the program's source after the safe fixes of that mode (changed ones only)."""
    source = program.source()
    out = {}
    for mode, settings in MODES.items():
        fixed = fix_source(source, "gen.py", settings).text
        if fixed != source and fixed not in out.values():
            out[mode] = fixed
    return out


def _runner(source: str):
    """The program's function, made to return its locals."""
    namespace: dict = {}
    exec(compile(source.rstrip() + "\n    return locals()\n", "<fixed>", "exec"), namespace)
    return namespace["f"]


def _run(function, program: Program, sizes: tuple[int, ...]) -> Optional[dict]:
    torch.manual_seed(0)
    arguments = environment(program, sizes)
    try:
        return function(**arguments)
    except ERRORS:
        return None


def _bytes(t: torch.Tensor) -> torch.Tensor:
    """The elements' bits in logical order (NaNs compare equal, every dtype alike)."""
    fresh = torch.empty(t.shape, dtype=t.dtype)  # strides of its own (a size-1 dim's too)
    return fresh.copy_(t).view(-1).view(torch.uint8)


def _differs(a: object, b: object) -> bool:
    if isinstance(a, torch.Tensor):
        return not (isinstance(b, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype
                    and torch.equal(_bytes(a), _bytes(b)))
    if isinstance(a, (int, float, bool, torch.Size, tuple)):
        return a != b
    return False


def fix_disagreements(program: Program) -> list[tuple[str, str]]:
    """(class, detail) for each safe fix that changes what the program does."""
    fixes = fixed_sources(program)
    if not fixes:
        return []
    original = _runner(program.source())
    runs = {sizes: _run(original, program, sizes) for sizes in program.assignments}
    pointers = {line.text.split(" = ", 1)[0] for line in program.lines if line.kind == "probe"}
    out = []
    for mode, source in fixes.items():
        fixed = _runner(source)
        for sizes, before in runs.items():
            if before is None:
                continue
            after = _run(fixed, program, sizes)
            if after is None:
                out.append(("safe fix raises", f"{mode} fixes, sizes {sizes}:\n{source}"))
                break
            changed = [name for name, value in before.items() if name not in pointers
                       and _differs(value, after.get(name))]
            if changed:
                out.append(("safe fix changes values",
                            f"{mode} fixes, sizes {sizes}, {', '.join(changed)}:\n{source}"))
                break
    return out
