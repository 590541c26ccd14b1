"""Effective settings for one lint run: which rules run and with what options.

`config.py` builds these from pyproject.toml and the command line; the engine only reads them.
Code selection follows ruff: every `select`/`ignore` entry is a code prefix and the longest
matching prefix decides, so `--select CTG1 --ignore CTG101` runs CTG1xx except CTG101. Opt-in
rules run only when their full code is selected.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

DEFAULT_SELECT = ("CTG",)
# The largest file checked, in bytes of its UTF-8 text (`max-file-size`; 0: no limit). Python's
# syntax tree of dense code takes about 200 bytes of memory per byte of source, and the analysis
# keeps it whole. At this size a run stays under 150 MB on the densest code measured (the files
# of benchmarks/pathological.py; a 450 kB chained expression took 147 MB with every rule on).
# A larger file is reported (E903) and not checked, never parsed.
DEFAULT_MAX_FILE_SIZE = 400 * 1024


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

    def is_enabled(self, code: str, opt_in: bool = False) -> bool:
        chosen = self.select + self.extend_select
        if opt_in:
            return code in chosen and code not in self.ignore
        best_select = max((len(p) for p in chosen if code.startswith(p)), default=-1)
        best_ignore = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return best_select >= 0 and best_select > best_ignore

    def option(self, code: str, name: str, default: object) -> object:
        return self.rule_options.get(code, {}).get(name, default)

    @cached_property
    def cache_key(self) -> str:
        """A stable text that changes whenever the findings could change (asked for every
        file of a cached run: made once)."""
        options = sorted((code, sorted(opts.items())) for code, opts in self.rule_options.items())
        return repr((self.select, self.ignore, self.extend_select, self.strict, options,
                     self.max_file_size))
