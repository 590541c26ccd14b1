"""The fixed program must behave like the original, minus the layout errors.

For a fixture with a golden `<name>.fixed.py` both programs run with the same seeds. Wherever
the original case returned, the fixed case must return the same values: `torch.equal`, or
`allclose` for floating tensors (a copy can reorder a reduction). No case of the fixed program
may raise a layout error (a view, overlap or contiguity error), whether or not it was caught.
"""
from __future__ import annotations

from typing import Any, Optional

from contiglint.verify.op_kinds import LAYOUT_ERROR
from contiglint.verify.records import RAISED, RETURNED, CaseRun, FileRun
from contiglint.verify.verdicts import ERROR, FIXED_DIFFERS, FIXED_OK, Verdict

RTOL, ATOL = 1e-5, 1e-6


def difference(original: Any, fixed: Any, where: str = "value") -> Optional[str]:
    """None when equal, else where and how the two returned values differ."""
    import torch

    if isinstance(original, torch.Tensor) or isinstance(fixed, torch.Tensor):
        if not (isinstance(original, torch.Tensor) and isinstance(fixed, torch.Tensor)):
            return f"{where}: {type(original).__name__} vs {type(fixed).__name__}"
        if original.shape != fixed.shape or original.dtype != fixed.dtype:
            return (f"{where}: shape {tuple(original.shape)} {original.dtype} vs "
                    f"{tuple(fixed.shape)} {fixed.dtype}")
        if torch.equal(original, fixed):
            return None
        inexact = original.is_floating_point() or original.is_complex()
        if inexact and torch.allclose(original, fixed, RTOL, ATOL, equal_nan=True):
            return None
        return f"{where}: values differ (max abs difference " \
               f"{(original.double() - fixed.double()).abs().max().item() if inexact else '?'})"
    if isinstance(original, dict) and isinstance(fixed, dict):
        if original.keys() != fixed.keys():
            return f"{where}: keys {sorted(map(str, original))} vs {sorted(map(str, fixed))}"
        return next(filter(None, (difference(original[k], fixed[k], f"{where}[{k!r}]")
                                  for k in original)), None)
    if isinstance(original, tuple) and isinstance(fixed, tuple):
        if len(original) != len(fixed):
            return f"{where}: {len(original)} items vs {len(fixed)}"
        return next(filter(None, (difference(a, b, f"{where}[{i}]")
                                  for i, (a, b) in enumerate(zip(original, fixed)))), None)
    return None if original == fixed else f"{where}: {original!r} vs {fixed!r}"


def layout_error(case: CaseRun, excused: set[int]) -> tuple[Optional[str], Optional[int]]:
    """(the first layout error the case raised or caught, its line if it is one of the lines
    in `excused`)."""
    for obs in case.observations:
        if obs.error and LAYOUT_ERROR.search(obs.error_message or ""):
            text = f"line {obs.line}: {obs.op} raised {obs.error}: {obs.error_message}"
            return text, (obs.line if obs.line in excused else None)
    if case.status == RAISED and LAYOUT_ERROR.search(case.error or ""):
        return case.error, None
    return None, None


def lines_reached(case: Optional[CaseRun]) -> set[int]:
    if case is None:
        return set()
    return set(case.lines) | {obs.line for obs in case.observations if obs.direct}


def compare_fixed(path: str, original: Optional[FileRun], fixed: Optional[FileRun],
                  unsafe_fix_lines: set[int], unfixable_lines: set[int]) -> list[Verdict]:
    """`unsafe_fix_lines`: lines of the original whose fix may change behaviour by design (a
    case that reached one may return other values); `unfixable_lines`: lines of the fixed
    program where a finding without a fix remains (a layout error there is expected)."""
    if fixed is None or fixed.error:
        return [Verdict(path, 0, "fixed", ERROR, "", fixed.error if fixed else "not run")]
    verdicts = []
    for case in fixed.cases:
        before = original.case(case.case) if original is not None else None
        problem, note = None, None
        error, excused = layout_error(case, unfixable_lines)
        if error is not None and excused is None:
            problem = f"raised a layout error: {error}"
        elif error is not None:
            note = f"still raises at line {excused}, where the finding has no fix: {error}"
        elif before is not None and before.status == RETURNED:
            changed = None if case.status == RETURNED else \
                f"the original returned, the fixed program {case.status}: {case.error}"
            changed = changed or difference(before.value, case.value)
            behaviour = sorted(lines_reached(before) & unsafe_fix_lines)
            if changed and behaviour:
                note = (f"{changed}; expected: it reached the unsafe fix(es) at line(s) "
                        f"{', '.join(map(str, behaviour))}, which change behaviour by design")
            elif changed:
                problem = f"returned other values: {changed}"
        if problem is not None:
            verdicts.append(Verdict(path, 0, "fixed", FIXED_DIFFERS,
                                    "fixing keeps behaviour and removes layout errors",
                                    problem, case.case))
        else:
            note = note or ("same values" if before is not None and before.status == RETURNED
                            else "no layout error (the original "
                            f"{before.status if before else 'has no such case'})")
            verdicts.append(Verdict(path, 0, "fixed", FIXED_OK, "", note, case.case))
    return verdicts
