"""The rule catalogue. Each rule lives in its own module, named after its code and meaning."""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from contiglint.rules.base import Rule


@lru_cache(maxsize=None)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code, discovered from the `ctgNNN_*` modules of this package."""
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("ctg"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(
            obj for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule
            and obj.__module__ == module.__name__
        )
    return tuple(sorted(found, key=lambda rule: rule.code))


def rule_by_code(code: str) -> type[Rule] | None:
    return next((rule for rule in all_rules() if rule.code == code.upper()), None)


def status(rule: type[Rule]) -> str:
    """The rule's status for selection (settings.STATUSES): "preview" when measured below the
    precision policy, "opt-in" when opt-in by design, else "stable"."""
    return "preview" if rule.preview else "opt-in" if rule.opt_in else "stable"


def statuses() -> tuple[tuple[str, str], ...]:
    """(code, status) of every rule, for `Settings.not_run`."""
    return tuple((rule.code, status(rule)) for rule in all_rules())


def known_codes() -> tuple[str, ...]:
    """Every documented code: the static rules' and the runtime-only ones (`contiglint run`)."""
    from contiglint.runtime.codes import RUNTIME_ONLY

    return tuple(rule.code for rule in all_rules()) + tuple(sorted(RUNTIME_ONLY))


def unknown_prefix(prefix: str) -> bool:
    """True when no documented code starts with `prefix` (a typo such as `CTG999`)."""
    return not any(code.startswith(prefix) for code in known_codes())


def severity(code: str) -> str:
    """"error" or "warning" for a documented code (its rule's `severity`); "error" otherwise."""
    from contiglint.runtime.codes import SEVERITY

    rule = rule_by_code(code)
    return rule.severity if rule is not None else SEVERITY.get(code, "error")
