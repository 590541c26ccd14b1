"""The `contiglint` command: argument parsing, dispatch and exit codes, nothing else.

Exit codes: 0 nothing left to report; 1 findings remain (or `--diff` would change files);
2 a usage, configuration, I/O, syntax or internal error (files that could be checked still are).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from dataclasses import replace
from typing import Optional, Sequence

from contiglint import __version__
from contiglint.cache import CACHE_DIR_NAME
from contiglint.config import ConfigError, Overrides, resolve, split_codes
from contiglint.engine import SourceError
from contiglint.files import SourceFile, decode, encode, read_source, replace_file, write_source
from contiglint.report import (
    FORMATS, ReportContext, diff_summary, fix_notes, not_run_line, render,
)
from contiglint.rules import statuses
from contiglint.runner import RunOptions, RunResult, process_source, run
from contiglint.terminal import Progress, _is_terminal, use_color

DELEGATES = {  # subcommand -> module with main(argv), written elsewhere, imported lazily
    "verify": "contiglint.verify.cli",
    "run": "contiglint.runtime.cli",
    "server": "contiglint.server",
    "explain": "contiglint.layout.explain.cli",
}
# a missing package -> the extra that installs it
PACKAGE_EXTRAS = {"pygls": "server", "lsprotocol": "server"}


def main(argv: Optional[Sequence[str]] = None) -> int:
    _tolerant_output()
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:  # `contiglint rule CTG101 | head`: the reader left, quietly stop
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    if command in ("rules", "rule"):
        from contiglint import rule_docs

        return (rule_docs.list_rules if command == "rules" else rule_docs.show_rule)(argv[1:])
    if command in DELEGATES:
        return delegate(command, argv[1:])
    if command == "check":
        argv = argv[1:]
    try:
        return check(argv)
    except KeyboardInterrupt:  # Ctrl-C: no traceback, the conventional status
        print("contiglint: interrupted", file=sys.stderr)
        return 130


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
                    "`contiglint rules`, `contiglint rule CODE|NAME`, `contiglint verify ...`, "
                    "`contiglint run ...`, `contiglint server` (language server), "
                    "`contiglint explain FILE:LINE[:COL]` (the layout there, and why).",
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
                        help="comma-separated code prefixes (or ALL) to run, replacing the "
                             "configured select, extend-select and ignore")
    parser.add_argument("--ignore", metavar="CODES", help="code prefixes to skip (added)")
    parser.add_argument("--extend-select", metavar="CODES",
                        help="code prefixes to run in addition (added)")
    parser.add_argument("--preview", action="store_true", default=None,
                        help="also run the preview rules that the selection's prefixes (or "
                             "ALL) name; a preview rule's full code selects it without this")
    parser.add_argument("--no-preview", action="store_false", dest="preview",
                        help="do not, whatever the configuration's `preview` says")
    parser.add_argument("--show-fixes", action="store_true",
                        help="with --fix or --diff, list each fix applied")
    parser.add_argument("--add-noqa", action="store_true",
                        help="add `# noqa: CODE` to every line with a finding, so that only "
                             "new code is reported from now on")
    parser.add_argument("--watch", action="store_true",
                        help="check again whenever a file changes (Ctrl-C stops)")
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="output format (default: full on a terminal, else text)")
    parser.add_argument("--output-file", "-o", metavar="FILE",
                        help="write the report to FILE instead of stdout")
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
    conflicts = [(args.add_noqa, "--add-noqa", args.fix or args.diff, "--fix/--diff"),
                 (args.watch, "--watch", args.fix or args.diff or args.add_noqa,
                  "--fix/--diff/--add-noqa"),
                 (stdin, "- (stdin)", args.watch or args.add_noqa, "--watch/--add-noqa"),
                 (args.show_fixes, "--show-fixes", not (args.fix or args.diff),
                  "a mode other than --fix/--diff")]
    for given, flag, other, others in conflicts:
        if given and other:
            return _usage(f"{flag} cannot be combined with {others}")
    name = args.stdin_filename or "-"
    start = os.path.dirname(os.path.abspath(name)) if stdin else args.paths[0]
    if args.watch:
        from contiglint.watch import watch

        return watch(lambda: _configured(args, start), lambda config, options: _run_once(
            args, config, options, stdin=False), args.paths)
    configured = _configured(args, start)
    if isinstance(configured, int):
        return configured
    return _run_once(args, *configured, stdin, name)


def _configured(args: argparse.Namespace, start: str):
    """(config, run options), or exit status 2 after printing what is wrong."""
    try:
        config = resolve(Overrides(
            select=split_codes("--select", args.select),
            ignore=split_codes("--ignore", args.ignore),
            extend_select=split_codes("--extend-select", args.extend_select),
            strict=args.strict, preview=args.preview), args.config,
            start if os.path.exists(start) else ".")
    except ConfigError as error:
        return _usage(str(error))
    mode = "diff" if args.diff else "fix" if args.fix else "check"
    cache_dir = None if args.no_cache or mode != "check" else os.environ.get(
        "CONTIGLINT_CACHE_DIR", os.path.join(config.root or os.getcwd(), CACHE_DIR_NAME))
    return config, RunOptions(mode, args.unsafe_fixes, args.jobs, cache_dir)


def _run_once(args: argparse.Namespace, config, options: RunOptions, stdin: bool,
              name: str = "-") -> int:
    if stdin:
        result, sources = _check_stdin(name, config, options)
    else:
        progress = Progress(enabled=not args.quiet and _is_terminal(sys.stderr))
        try:
            result = run(args.paths, config, options, progress)
        finally:
            progress.done()
        _say_named_files_are_python(result)
        sources = {}
    if args.add_noqa:
        return _add_noqa(args, result)
    return _report(args, options.mode, result, sources,
                   fixed_stdout=stdin and options.mode == "fix",
                   not_run=config.settings.not_run(statuses()) if result.outcomes else ())


PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")  # what a directory's walk takes (`*.py`), and stubs


def _say_named_files_are_python(result: RunResult) -> None:
    """A file named on the command line is checked as Python whatever its name (as ruff and
    flake8 do: a script without a suffix); where one with another name does not parse, its
    syntax error says why it was read as Python (`contiglint README.md`)."""
    for outcome in result.outcomes:
        if not outcome.path.endswith(PYTHON_SUFFIXES):
            outcome.errors = [replace(error, message=f"{error.message} (checked as Python "
                                      "because it was named; its name does not end in .py)")
                              if error.kind == "syntax" else error for error in outcome.errors]


def _check_stdin(name: str, config, options: RunOptions) -> tuple[RunResult, dict]:
    data = sys.stdin.buffer.read()
    decoded = decode(data, name)
    if not isinstance(decoded, tuple):
        return RunResult(errors=[decoded]), {}
    text, encoding = decoded
    source = SourceFile(name, text, encoding, "")
    outcome = process_source(source, config, options)
    if options.mode == "fix":  # the fixed program goes to stdout, like ruff and black
        sys.stdout.buffer.write(encode(source, outcome.text if outcome.text is not None
                                       else text))
        sys.stdout.flush()
    return RunResult([outcome]), {name: outcome.text if outcome.text is not None else text}


def _report(args: argparse.Namespace, mode: str, result: RunResult, sources: dict,
            fixed_stdout: bool, not_run: Sequence[str] = ()) -> int:
    findings, errors = result.findings, result.all_errors
    # no file checked: say so, as ruff does, instead of "All checks passed!"
    nothing = not result.outcomes and args.paths != ["-"]
    to_file = args.output_file is not None
    stream = sys.stderr if fixed_stdout else sys.stdout
    format = args.format or ("full" if not to_file and _is_terminal(stream) else "text")
    color = not to_file and use_color(stream) and format in ("full", "text")
    err_color = use_color(sys.stderr)
    shown = ""
    if args.show_fixes:
        shown = fixes_listing(result.applied_fixes, mode)
    if mode == "diff":
        out = "".join(outcome.diff for outcome in result.outcomes)
        _, err = render("text", [], errors, ReportContext(mode, quiet=True, color=err_color))
        err += shown + ("" if args.quiet else diff_summary(result.fixed, result.changed_files)
                        + not_run_line(not_run))
    else:
        context = ReportContext(mode, args.unsafe_fixes, result.fixed, result.changed_files,
                                args.quiet, args.statistics, color, sources, nothing,
                                tuple(not_run))
        out, err = render(format, findings, errors, context)
        if format in ("full", "text") and err_color != color:  # stderr: its own terminal
            _, err = render("text", [], errors, replace(context, color=err_color))
        out = shown + out
    err = fix_notes(findings, args.unsafe_fixes, args.quiet) + err  # the edits are made by now
    if to_file:
        try:
            replace_file(os.path.realpath(args.output_file), out.encode("utf-8"))
        except OSError as error:
            print(f"contiglint: error: --output-file {args.output_file}: cannot write: "
                  f"{error.strerror or error}", file=sys.stderr)
            return 2
    else:
        stream.write(out)
    if nothing and not args.quiet:
        err = "contiglint: warning: No Python files found under the given path(s)\n" + err
    sys.stderr.write(err)
    if errors:
        return 2
    if mode == "diff":
        return 1 if result.fixed else 0
    return 1 if findings and not args.exit_zero else 0


def fixes_listing(fixed: Sequence, mode: str) -> str:
    """--show-fixes: one line per fix, `path:line:col: CODE description`."""
    verb = "Would fix" if mode == "diff" else "Fixed"
    if not fixed:
        return f"{verb} nothing.\n" if mode == "fix" else ""
    lines = [f"{verb} {len(fixed)} problem{'s' if len(fixed) != 1 else ''}:"]
    lines += [f"  {f.path}:{f.line}:{f.column}: {f.code} {f.fix.description}"
              for f in fixed]
    return "\n".join(lines) + "\n"


def _add_noqa(args: argparse.Namespace, result: RunResult) -> int:
    """Insert `# noqa: CODE` on the lines with findings, writing each file atomically."""
    from contiglint.noqa import add_noqa

    by_path: dict[str, list] = {}
    for finding in result.findings:
        by_path.setdefault(finding.path, []).append(finding)
    errors = list(result.all_errors)
    added = 0
    for path, findings in sorted(by_path.items()):
        source = read_source(path)
        if isinstance(source, SourceError):
            errors.append(source)
            continue
        text, count = add_noqa(source.text, findings)
        if count:
            error = write_source(source, text)
            if error:
                errors.append(error)
                continue
        added += count
    _, err = render("text", [], errors, ReportContext(quiet=args.quiet))
    sys.stderr.write(err)
    if not args.quiet:
        print(f"Added {added} noqa directive{'s' if added != 1 else ''}.")
    return 2 if errors else 0


def _usage(message: str) -> int:
    print(f"contiglint: error: {message}", file=sys.stderr)
    return 2


TORCH_EXTRAS = {"verify": "verify", "run": "runtime"}  # subcommand -> the extra that brings torch


def torch_missing(command: str) -> str:
    return (f"`contiglint {command}` needs PyTorch, which is not installed; install it with "
            f"`pip install 'contiglint[{TORCH_EXTRAS[command]}]'` (or `pip install torch`)")


def torch_problem() -> Optional[str]:
    """None when `import torch` works; "missing" when it is not installed; else the error.
    Importing it here costs nothing extra: the subcommand is about to import it anyway."""
    try:
        import torch  # noqa: F401
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] == "torch":
            return "missing"
        return f"{type(error).__name__}: {error}"
    except Exception as error:  # noqa: BLE001 - a broken install: say so in one line
        return f"{type(error).__name__}: {error}"
    return None


def delegate(command: str, argv: Sequence[str]) -> int:
    """Run a subcommand written elsewhere, importing it (and torch) only when asked for."""
    module_name = DELEGATES[command]
    wants_help = any(arg in ("-h", "--help") for arg in argv[:1])
    if not wants_help and command in TORCH_EXTRAS:
        problem = torch_problem()
        if problem:
            return _usage(torch_missing(command) if problem == "missing" else
                          f"`contiglint {command}` cannot import PyTorch: {problem}")
    try:
        module = importlib.import_module(module_name)
        return int(module.main(list(argv)) or 0)
    except ModuleNotFoundError as error:
        missing = error.name or str(error)
        if missing == "torch" or missing.startswith("torch."):
            return _usage(torch_missing(command))
        extra = PACKAGE_EXTRAS.get(missing.split(".")[0])
        if extra:
            return _usage(f"`contiglint {command}` needs the `{extra}` extra ({missing} is not "
                          f"installed): pip install 'contiglint[{extra}]'")
        if module_name.startswith(missing):
            return _usage(f"`contiglint {command}` is not available in this installation "
                          f"({module_name} is missing)")
        return _usage(f"`contiglint {command}` needs the package {missing!r}; install it first")
