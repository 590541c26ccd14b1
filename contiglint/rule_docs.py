"""`contiglint rules` (the table of every rule) and `contiglint rule CODE|NAME|--all` (their
documentation). A rule is named by its code (`CTG101`, any case) or by its name
(`view-on-noncontiguous`), as `ruff rule` accepts; runtime-only rules (CTG2xx) too.
"""
from __future__ import annotations

import argparse
import difflib
import sys
from typing import Optional, Sequence

from contiglint.rules import all_rules, registry, rule_by_code
from contiglint.runtime.codes import EXPLANATIONS, NAMES, RUNTIME_ONLY, SEVERITY, TITLES


def _parser(prog: str, description: str) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=prog, description=description,
                                   epilog="Exit status: 0 success, 2 usage error.")


def _fix_label(fix_safety: str) -> str:
    return {"none": "none", "safe": "safe", "unsafe": "unsafe",
            "safe or unsafe": "safe/unsafe"}[fix_safety]


def rule_names() -> dict[str, str]:
    """Every documented rule's code by its name: the static rules' and the runtime-only ones."""
    return {**{rule.name: rule.code for rule in all_rules()},
            **{NAMES[code]: code for code in RUNTIME_ONLY}}


def resolve(value: str) -> Optional[str]:
    """The code of the rule `value` names, by code (any case) or by name; None if none."""
    code = value.strip().upper()
    if rule_by_code(code) is not None or code in RUNTIME_ONLY:
        return code
    return rule_names().get(value.strip().lower().replace("_", "-"))


def list_rules(argv: Sequence[str]) -> int:
    parser = _parser(
        "contiglint rules", "List every rule: code, name, what --fix can do (safe, unsafe, "
        "safe/unsafe: depending on the finding or an option, none), severity and summary. "
        "Runtime rules are reported by `contiglint run` only.")
    parser.parse_args(argv)
    rows = [(rule.code, rule.name, _fix_label(rule.fix_safety), rule.severity,
             rule.summary + (" (preview: --preview)" if entry.preview else " (opt-in)"
                             if entry.opt_in else ""))
            for entry in registry.entries() for rule in [entry.rule]]
    rows += [(code, NAMES[code], "none", SEVERITY[code],
              TITLES[code] + " (runtime: contiglint run)") for code in RUNTIME_ONLY]
    header = ("CODE", "NAME", "FIX", "SEVERITY", "SUMMARY")
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(4)]
    for row in [header] + rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4])
    return 0


def show_rule(argv: Sequence[str]) -> int:
    parser = _parser("contiglint rule", "Print the documentation of one rule, or of all.")
    parser.add_argument("rule", nargs="?", metavar="CODE|NAME",
                        help="a rule's code or name: CTG101 or view-on-noncontiguous")
    parser.add_argument("--all", action="store_true", help="print every rule's documentation")
    args = parser.parse_args(argv)
    if args.all == (args.rule is not None):
        return _usage("contiglint rule: give a rule's code or name, or --all")
    if args.all:
        codes = [rule.code for rule in all_rules()] + list(RUNTIME_ONLY)
        print("\n\n".join(documentation(code) for code in codes))
        return 0
    code = resolve(args.rule)
    if code is None:
        close = difflib.get_close_matches(args.rule.lower(), list(rule_names()), 1)
        hint = f"; did you mean {close[0]}?" if close else ""
        return _usage(f"unknown rule {args.rule!r}: no rule has that code or name{hint} "
                      "(`contiglint rules` lists them)")
    print(documentation(code))
    return 0


def _usage(message: str) -> int:
    print(f"contiglint: error: {message}", file=sys.stderr)
    return 2


def documentation(code: str) -> str:
    """What `contiglint rule CODE` prints: the header, the documentation, the options."""
    rule = rule_by_code(code)
    if rule is None:
        return (f"{code} ({NAMES[code]}): {TITLES[code]}\n[severity: {SEVERITY[code]}; "
                "reported by `contiglint run`, `contiglint.runtime.watch()` and `pytest "
                f"--contiglint-runtime` only]\n\n{EXPLANATIONS[code]}")
    fix = {"none": "no fix", "safe": "fix: safe (--fix)",
           "unsafe": "fix: unsafe (--fix --unsafe-fixes)",
           "safe or unsafe": "fix: safe or unsafe depending on the finding (--fix, "
                             "--unsafe-fixes)"}[rule.fix_safety]
    entry = registry.entry(rule)
    default = (f"preview: opt-in, runs with --preview or when {rule.code} is selected"
               if entry.preview else
               f"opt-in: select {rule.code} to run it" if entry.opt_in else "runs by default")
    lines = [f"{rule.code} ({rule.name}): {rule.summary}\n[severity: {rule.severity}; {fix}; "
             f"{default}]\n", rule.documentation()]
    if rule.options:
        lines.append("\nOptions ([tool.contiglint." + rule.code + "] in pyproject.toml):")
        for option_name, option in rule.options.items():
            values = ", ".join(repr(choice) for choice in option.choices) or \
                type(option.default).__name__
            lines.append(f"  {option_name} = {option.default!r}  ({values}) "
                         f"{option.help}".rstrip())
    return "\n".join(lines)
