"""Effective settings for one lint run: which rules run and with what options.

`config.py` builds these from pyproject.toml and the command line; the engine only reads them.
Code selection follows ruff: every `select`/`ignore` entry is a code prefix, or `ALL`, and the
most specific matching entry decides (`ALL` is the least specific), so `--select CTG1 --ignore
CTG101` runs CTG1xx except CTG101. A rule's status (stable, preview or opt-in) decides which
entries select it:

* a stable rule: any matching prefix, or `ALL`;
* a preview rule (measured below the precision policy): its full code; a prefix or `ALL` only
  when preview is on (`--preview`, `preview = true`), as in ruff. Unlike ruff, the full code
  selects it without preview: the way to run one preview rule and no other;
* an opt-in rule (by design, CTG113): its full code, or `ALL`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Iterable, Mapping

DEFAULT_SELECT = ("CTG",)
# The largest file checked, in bytes of its UTF-8 text (`max-file-size`; 0: no limit). Python's
# syntax tree of dense code takes about 200 bytes of memory per byte of source, and the analysis
# keeps it whole: a 400 kB file of the densest code measured (benchmarks/pathological.py) took
# up to 126 MB with every rule on. Real modules are far less dense: the largest of the real-code
# corpora, unsloth's studio/backend/core/inference/llama_cpp.py (2.0 MB), is checked in 5.5 s
# within 155 MB. The limit is above every module of those corpora (at 1 MiB that module was
# refused, and the run exited 2): real code is checked, generated megabytes are not. A larger
# file is reported (E903) and not checked, never parsed.
DEFAULT_MAX_FILE_SIZE = 5 * 1024 * 1024
ALL = "ALL"  # the selector of every rule
STABLE, PREVIEW, OPT_IN = "stable", "preview", "opt-in"
STATUSES = (STABLE, PREVIEW, OPT_IN)


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = DEFAULT_SELECT
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    strict: bool = False
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    rule_options: Mapping[str, Mapping[str, object]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    preview: bool = False

    def is_enabled(self, code: str, status: str = STABLE) -> bool:
        """Whether the rule `code` of this status runs (`status`: one of STATUSES)."""
        if status not in STATUSES:
            raise ValueError(f"unknown rule status {status!r} (known: {', '.join(STATUSES)})")
        chosen = self.select + self.extend_select
        best_select = max((_specificity(code, entry) for entry in chosen
                           if _selects(entry, code, status, self.preview)), default=-1)
        best_ignore = max((_specificity(code, entry) for entry in self.ignore
                           if _matches(entry, code)), default=-1)
        return best_select >= 0 and best_select > best_ignore

    def not_run(self, rules: Iterable[tuple[str, str]]) -> tuple[str, ...]:
        """The codes among `rules` ((code, status) pairs) that this selection names but that
        do not run because preview is off: what `--preview` would add."""
        if self.preview:
            return ()
        on = replace(self, preview=True)
        return tuple(code for code, status in rules
                     if on.is_enabled(code, status) and not self.is_enabled(code, status))

    def option(self, code: str, name: str, default: object) -> object:
        return self.rule_options.get(code, {}).get(name, default)

    @cached_property
    def cache_key(self) -> str:
        """A stable text that changes whenever the findings could change (asked for every
        file of a cached run: made once)."""
        options = sorted((code, sorted(opts.items())) for code, opts in self.rule_options.items())
        return repr((self.select, self.ignore, self.extend_select, self.strict, self.preview,
                     options, self.max_file_size))


def _matches(entry: str, code: str) -> bool:
    return entry == ALL or code.startswith(entry)


def _specificity(code: str, entry: str) -> int:
    return 0 if entry == ALL else len(entry)


def _selects(entry: str, code: str, status: str, preview: bool) -> bool:
    """Whether the select entry `entry` selects the rule `code` of this status."""
    if entry == code or status == STABLE:
        return _matches(entry, code)
    if status == PREVIEW:
        return preview and _matches(entry, code)
    return entry == ALL  # opt-in by design: its full code or ALL
