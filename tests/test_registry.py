"""The rule registry (contiglint/rules/registry.py): one table of code -> rule class -> status."""
from __future__ import annotations

import importlib
import pkgutil

import pytest

import contiglint.rules as rules_package
from contiglint.rules import precision, registry
from contiglint.rules.base import Rule
from contiglint.settings import STATUSES


def test_every_rule_module_is_registered_under_its_code():
    """A `ctgNNN_*` module's rule class is in the table under its code: none is forgotten."""
    defined = {}
    for info in pkgutil.iter_modules(rules_package.__path__):
        if info.name.startswith("ctg"):
            module = importlib.import_module(f"contiglint.rules.{info.name}")
            for obj in vars(module).values():
                if isinstance(obj, type) and issubclass(obj, Rule) and \
                        obj.__module__ == module.__name__:
                    defined[obj.code] = obj
    assert defined == registry.RULES
    assert [entry.code for entry in registry.entries()] == sorted(defined)


def test_status_is_the_policy_and_no_class_is_changed():
    """Preview is read from the measured precision, not written into the rule class."""
    preview = [entry for entry in registry.entries() if entry.status == "preview"]
    assert preview  # CTG101 and others are measured below the policy
    for entry in registry.entries():
        assert entry.status in STATUSES
        assert "preview" not in vars(entry.rule) and not hasattr(Rule, "preview")
        assert entry.preview == (not entry.rule.opt_in and
                                 precision.measured(entry.code).preview)
        assert entry.opt_in == (entry.rule.opt_in or entry.preview)
    assert registry.entry(registry.RULES["CTG113"]).status == "opt-in"


@pytest.mark.parametrize("fact, value, message", [
    ("fix_safety", "sometimes", "fix_safety 'sometimes', not one of 'none', 'safe'"),
    ("severity", "fatal", "severity 'fatal', not one of 'error', 'warning'"),
])
def test_a_bad_declared_fact_is_an_error_naming_it(monkeypatch, fact, value, message):
    bad = type("BadRule", (registry.RULES["CTG101"],), {fact: value})
    monkeypatch.setitem(registry.RULES, "CTG101", bad)
    registry.entries.cache_clear()
    registry._by_class.cache_clear()
    try:
        with pytest.raises(ValueError, match="BadRule has " + message):
            registry.entries()
    finally:
        monkeypatch.undo()
        registry.entries.cache_clear()
        registry._by_class.cache_clear()
    assert registry.entries()[0].rule is not bad


def test_a_rule_under_another_code_is_an_error(monkeypatch):
    monkeypatch.setitem(registry.RULES, "CTG102", registry.RULES["CTG101"])
    registry.entries.cache_clear()
    try:
        with pytest.raises(ValueError, match="registered as CTG102 but its code is 'CTG101'"):
            registry.entries()
    finally:
        monkeypatch.undo()
        registry.entries.cache_clear()
