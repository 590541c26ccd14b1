"""The rule catalogue. Each rule lives in its own module, named after its code and meaning."""
from __future__ import annotations

from functools import lru_cache

from contiglint.rules.base import Rule
from contiglint.settings import Settings


@lru_cache(maxsize=None)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code: the registry's (rules/registry.py)."""
    from contiglint.rules import registry

    return tuple(entry.rule for entry in registry.entries())


def rule_by_code(code: str) -> type[Rule] | None:
    return next((rule for rule in all_rules() if rule.code == code.upper()), None)


def status(rule: type[Rule]) -> str:
    """The rule's status for selection (settings.STATUSES), from the registry."""
    from contiglint.rules import registry

    return registry.entry(rule).status


def statuses() -> tuple[tuple[str, str], ...]:
    """(code, status) of every rule, for `Settings.not_run`."""
    from contiglint.rules import registry

    return tuple((entry.code, entry.status) for entry in registry.entries())


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


def enabled_rules(settings: Settings) -> list[Rule]:
    from contiglint.rules import registry

    return [entry.rule() for entry in registry.entries()
            if settings.is_enabled(entry.code, entry.status)]
