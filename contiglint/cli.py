"""The `contiglint` command: argument parsing, dispatch and exit codes, nothing else.

Exit codes: 0 nothing left to report; 1 findings remain (or `--diff` would change files);
2 a usage, configuration, I/O, syntax or internal error (files that could be checked still are).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Optional, Sequence

from contiglint import __version__
from contiglint.cache import CACHE_DIR_NAME
from contiglint.config import ConfigError, Overrides, resolve, split_codes
from contiglint.files import SourceFile, decode, encode
from contiglint.report import FORMATS, ReportContext, diff_summary, render
from contiglint.runner import RunOptions, RunResult, process_source, run

DELEGATES = {  # subcommand -> module with main(argv), written elsewhere, imported lazily
    "verify": "contiglint.verify.cli",
    "run": "contiglint.runtime.cli",
}


def main(argv: Optional[Sequence[str]] = None) -> int:
    _tolerant_output()
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else ""
    if command == "rules":
        return list_rules(argv[1:])
    if command == "rule":
        return show_rule(argv[1:])
    if command in DELEGATES:
        return delegate(command, argv[1:])
    if command == "check":
        argv = argv[1:]
    return check(argv)


def _tolerant_output() -> None:
    """Paths may hold what the terminal cannot encode (a file name that is not UTF-8, CJK on
    a cp1252 console): print it escaped instead of dying with UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="contiglint",
        description="Find PyTorch memory-layout (contiguity) hazards. Other commands: "
                    "`contiglint rules`, `contiglint rule CODE`, `contiglint verify ...`, "
                    "`contiglint run ...`.",
        epilog="Exit status: 0 nothing to report, 1 findings remain (or --diff has changes), "
               "2 usage, configuration, I/O, syntax or internal error.")
    parser.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                        help="files or directories to check (default: .); - reads stdin")
    parser.add_argument("--stdin-filename", metavar="NAME",
                        help="the name to report (and match per-file-ignores) for stdin")
    parser.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="also apply fixes that may change behaviour")
    parser.add_argument("--diff", action="store_true",
                        help="print the fixes as a unified diff instead of writing them; "
                             "exit 1 if there are any")
    parser.add_argument("--select", metavar="CODES",
                        help="comma-separated code prefixes to run, replacing the configured "
                             "select, extend-select and ignore")
    parser.add_argument("--ignore", metavar="CODES", help="code prefixes to skip (added)")
    parser.add_argument("--extend-select", metavar="CODES",
                        help="code prefixes to run in addition (added)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    parser.add_argument("--statistics", action="store_true",
                        help="print the number of findings per code instead of each finding")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even if findings remain (errors still exit 2)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print findings and errors only, no summary")
    parser.add_argument("--config", metavar="FILE", help="use this pyproject.toml")
    parser.add_argument("--strict", action="store_true",
                        help="also flag sinks whose layout is unknown")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    parser.add_argument("-j", "--jobs", type=_jobs, default=0, metavar="N",
                        help="worker processes (default: all cores)")
    parser.add_argument("--version", action="version", version=f"contiglint {__version__}")
    return parser


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def check(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    stdin = args.paths == ["-"]
    if "-" in args.paths and not stdin:
        return _usage("- (stdin) cannot be combined with other paths")
    name = args.stdin_filename or "-"
    start = os.path.dirname(os.path.abspath(name)) if stdin else args.paths[0]
    try:
        config = resolve(Overrides(
            select=split_codes("--select", args.select),
            ignore=split_codes("--ignore", args.ignore),
            extend_select=split_codes("--extend-select", args.extend_select),
            strict=args.strict), args.config, start if os.path.exists(start) else ".")
    except ConfigError as error:
        return _usage(str(error))
    mode = "diff" if args.diff else "fix" if args.fix else "check"
    cache_dir = None if args.no_cache or mode != "check" else os.environ.get(
        "CONTIGLINT_CACHE_DIR", os.path.join(config.root or os.getcwd(), CACHE_DIR_NAME))
    options = RunOptions(mode, args.unsafe_fixes, args.jobs, cache_dir)
    if stdin:
        result = _check_stdin(name, config, options)
    else:
        result = run(args.paths, config, options)
    return _report(args, mode, result, fixed_stdout=stdin and mode == "fix")


def _check_stdin(name: str, config, options: RunOptions) -> RunResult:
    data = sys.stdin.buffer.read()
    decoded = decode(data, name)
    if not isinstance(decoded, tuple):
        return RunResult(errors=[decoded])
    text, encoding = decoded
    source = SourceFile(name, text, encoding, "")
    outcome = process_source(source, config, options)
    if options.mode == "fix":  # the fixed program goes to stdout, like ruff and black
        sys.stdout.buffer.write(encode(source, outcome.text if outcome.text is not None
                                       else text))
        sys.stdout.flush()
    return RunResult([outcome])


def _report(args: argparse.Namespace, mode: str, result: RunResult, fixed_stdout: bool) -> int:
    findings, errors = result.findings, result.all_errors
    if mode == "diff":
        sys.stdout.write("".join(outcome.diff for outcome in result.outcomes))
        _, err = render("text", [], errors, ReportContext(mode, quiet=True))  # stdout: diff
        sys.stderr.write(err + ("" if args.quiet else
                                diff_summary(result.fixed, result.changed_files)))
    else:
        context = ReportContext(mode, args.unsafe_fixes, result.fixed, result.changed_files,
                                args.quiet, args.statistics)
        out, err = render(args.format, findings, errors, context)
        (sys.stderr if fixed_stdout else sys.stdout).write(out)
        sys.stderr.write(err)
    if errors:
        return 2
    if mode == "diff":
        return 1 if result.fixed else 0
    return 1 if findings and not args.exit_zero else 0


def _usage(message: str) -> int:
    print(f"contiglint: error: {message}", file=sys.stderr)
    return 2


def list_rules(argv: Sequence[str]) -> int:
    from contiglint.rules import all_rules

    if argv:
        return _usage("`contiglint rules` takes no arguments; use `contiglint rule CODE`")
    rows = [(rule.code, rule.name, "yes" if rule.fixable else "no",
             rule.summary + (" (preview, opt-in)" if rule.preview else " (opt-in)" if rule.opt_in
                             else "")) for rule in all_rules()]
    header = ("CODE", "NAME", "FIXABLE", "SUMMARY")
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(3)]
    for row in [header] + rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[3])
    return 0


def show_rule(argv: Sequence[str]) -> int:
    from contiglint.rules import all_rules, rule_by_code

    if len(argv) != 1:
        return _usage("usage: contiglint rule CODE (for example: contiglint rule CTG101)")
    rule = rule_by_code(argv[0])
    if rule is None:
        known = ", ".join(r.code for r in all_rules()) or "none"
        return _usage(f"unknown rule {argv[0]!r} (known rules: {known})")
    fixable = "fixable with --fix" if rule.fixable else "not fixable"
    status = ", preview: opt-in" if rule.preview else ", opt-in" if rule.opt_in else ""
    print(f"{rule.code} ({rule.name}): {rule.summary}\n[{fixable}{status}]\n")
    print(rule.documentation())
    return 0


def delegate(command: str, argv: Sequence[str]) -> int:
    """Run a subcommand written elsewhere, importing it (and torch) only when asked for."""
    module_name = DELEGATES[command]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or str(error)
        if missing == "torch" or missing.startswith("torch."):
            return _usage(f"`contiglint {command}` needs PyTorch, which is not installed; "
                          "install it with `pip install torch`")
        if module_name.startswith(missing):
            return _usage(f"`contiglint {command}` is not available in this installation "
                          f"({module_name} is missing)")
        return _usage(f"`contiglint {command}` needs the package {missing!r}; install it first")
    return int(module.main(list(argv)) or 0)
