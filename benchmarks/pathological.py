"""How much time and memory does contiglint take on pathological files?

    python benchmarks/pathological.py [--only NAME,...] [--scale 1.0] [--rules default,all]
                                      [--fit BYTES] [--max-file-size N] [--no-linearity]
                                      [--timeout S] [--keep DIR]

The files are generated here, into a temporary directory (or `--keep DIR`):
  * one_line: a 4.5 MB single-line module, one huge list literal of tensor expressions;
  * chain: a 4.5 MB single-line chained expression (`x.view(..).transpose(..).view(..)...`)
    cut into statements the parser accepts (one statement per 100 links);
  * module_100k: a ~100k-line module of model code, a template of PyTorch modules (views,
    transposes, permutes, `.contiguous()`, reshapes) repeated with varied names and shapes;
  * deep_nesting: expressions and blocks nested near the parser's limits (parentheses 190
    deep, `if` blocks 90 deep, a 1000-deep `elif` chain, a 1000-term `+` chain);
  * many_functions: 40k small functions that each view and transpose a tensor;
  * nested_copies: 4.5 MB of copy-if-needed calls nested 150 deep (`f(a.to(a.to(...)))`),
    which the rules' looks at the text read the spine of (layout/syntax/text_spines.py: the
    inner calls are inside each outer call's brackets);
  * huge_function: one function of 60k lines.
`--fit BYTES` shrinks each one to just under BYTES (e.g. contiglint's `max-file-size`, so that
it is checked rather than reported as E903): the time and memory of a run at that size.
Each is linted by the CLI in a fresh subprocess (`--no-cache -j1`), with the default rules and
with every rule (`--select` of every code, preview and opt-in ones too, as
benchmarks/findings_diff.py builds it). Wall time and the child's peak RSS
(`resource.getrusage(RUSAGE_CHILDREN)`, one child per run, read in a fresh helper process)
are printed per file and rule set, with the result (findings, or the E9xx error the run
reported). Then a linearity check: the 100k-line module at 1/4, 1/2 and 1x of its size;
"slope" is the growth (wall, CPU, RSS) per line of the second half over that of the second
quarter, 1.0 when linear. A file over 256 kB is analysed one group of top-level statements at
a time (contiglint/segments.py), which bounds the memory; the target is 150 MB per process.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MB = 1024 * 1024

TEMPLATE = '''

class Attention{i}(nn.Module):
    """Multi-head attention block {i}."""

    def __init__(self, dim={dim}, heads={heads}):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).view(b, n, 3, self.heads, c // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2)
        out = out.view(b, n, c)
        return self.proj(out)


def patchify{i}(images, patch={patch}):
    b, c, h, w = images.shape
    x = images.view(b, c, h // patch, patch, w // patch, patch)
    x = x.permute(0, 2, 4, 1, 3, 5).contiguous()
    return x.view(b, (h // patch) * (w // patch), c * patch * patch)


def merge_heads{i}(x, heads={heads}):
    t = x.transpose(1, 2)
    if t.is_contiguous():
        return t.view(t.shape[0], t.shape[1], -1)
    return t.reshape(t.shape[0], t.shape[1], -1)


def shift{i}(x):
    y = torch.roll(x.transpose(-1, -2), shifts={patch}, dims=-1)
    return y.contiguous().view(-1)
'''
TEMPLATE_HEADER = "import torch\nimport torch.nn as nn\n"


def module_lines(lines: int) -> str:
    """A module of about `lines` lines made of `TEMPLATE` with varied names and shapes."""
    parts = [TEMPLATE_HEADER]
    per = TEMPLATE.count("\n")
    for i in range(max(1, lines // per)):
        parts.append(TEMPLATE.format(i=i, dim=64 * (1 + i % 8), heads=1 << (i % 4),
                                     patch=2 + i % 3))
    return "".join(parts)


def one_line(size: int) -> str:
    return "import torch; data = [" + pieces(
        size, lambda i: f"torch.zeros({i}, 3).transpose(0, 1), ") + "]\n"


def chain(size: int) -> str:
    """`x = x.view(..).transpose(..)...` statements, `;`-separated on one line."""
    links = (".view({i}, -1)", ".transpose(0, 1)", ".contiguous()", ".permute(1, 0)")
    return "import torch; x = torch.zeros(4, 4)" + pieces(
        size, lambda i: ("; x = x" if i and i % 100 == 0 else "") +
        links[i % len(links)].format(i=i % 64 + 1)) + "\n"


def pieces(size: int, piece) -> str:
    """`piece(0) + piece(1) + ...` up to `size` characters."""
    parts, total, i = [], 0, 0
    while total < size:
        parts.append(piece(i))
        total += len(parts[-1])
        i += 1
    return "".join(parts)


def deep_nesting(_size: int) -> str:
    out = ["import torch\n", "x = torch.zeros(2, 3)\n"]
    out.append("a = " + "(" * 190 + "x.transpose(0, 1)" + ")" * 190 + ".view(-1)\n")
    block = ["def nested(x):\n"]
    for depth in range(1, 91):
        block.append("    " * depth + f"if x.dim() > {depth}:\n")
    block.append("    " * 91 + "return x.transpose(0, 1).view(-1)\n")
    block.append("    return x\n")
    out.extend(block)
    out.append("def chained(x, k):\n    if k == 0:\n        y = x.t()\n")
    for k in range(1, 1000):
        out.append(f"    elif k == {k}:\n        y = x.transpose(0, {k % 2})\n")
    out.append("    return y.view(-1)\n")
    out.append("s = " + " + ".join(f"x.t()[{k % 2}]" for k in range(1000)) + "\n")
    return "".join(out)


def nested_copies(size: int) -> str:
    """Statements `f(a.to(a.to(...(1)...)))`, 150 calls deep (under the parser's limit of 200
    nested brackets), up to `size` characters."""
    return "import torch\na = torch.zeros(2)\n" + pieces(
        size, lambda i: "f(" + "a.to(" * 150 + "1" + ")" * 151 + "\n")


def many_functions(count: int) -> str:
    parts = [TEMPLATE_HEADER]
    for i in range(count):
        parts.append(f"\n\ndef f{i}(x):\n    y = x.transpose(0, {i % 2})\n"
                     f"    return y.view(-1, {i % 7 + 1})\n")
    return "".join(parts)


def huge_function(lines: int) -> str:
    parts = [TEMPLATE_HEADER, "\n\ndef forward(x, w):\n"]
    body = ("    h{i} = x.transpose(1, 2)\n", "    h{i} = h{j}.view(h{j}.shape[0], -1)\n",
            "    h{i} = torch.matmul(h{j}, w).permute(0, 2, 1)\n",
            "    h{i} = h{j}.contiguous().view(-1)\n", "    x = h{i}.reshape(x.shape)\n")
    for i in range(lines):
        parts.append(body[i % len(body)].format(i=i, j=i - 1))
    parts.append("    return x\n")
    return "".join(parts)


FILES = {
    "one_line": lambda scale: one_line(int(4.5 * MB * scale)),
    "chain": lambda scale: chain(int(4.5 * MB * scale)),
    "module_100k": lambda scale: module_lines(int(100_000 * scale)),
    "deep_nesting": deep_nesting,
    "many_functions": lambda scale: many_functions(int(40_000 * scale)),
    "nested_copies": lambda scale: nested_copies(int(4.5 * MB * scale)),
    "huge_function": lambda scale: huge_function(int(60_000 * scale)),
}


def codes() -> str:
    # every code by name: preview and opt-in rules run only when selected so
    from contiglint.rules import all_rules
    return ",".join(rule.code for rule in all_rules())


# One child per measurement: RUSAGE_CHILDREN of a fresh helper is the peak of its only child.
# A child that runs past the timeout is killed (and waited for): its peak so far is printed.
MEASURE = r"""
import json, resource, subprocess, sys, time
timeout = float(sys.argv[1])
start = time.perf_counter()
try:
    proc = subprocess.run(sys.argv[2:], capture_output=True, text=True, timeout=timeout)
    rc, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
except subprocess.TimeoutExpired:
    rc, stdout, stderr = "timeout", "", f"killed after {timeout:.0f} s"
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                  "rss_kb": usage.ru_maxrss, "rc": rc,
                  "stdout": stdout, "stderr": stderr[-2000:]}))
"""


def measure(path: Path, rules: str, timeout: float) -> dict:
    """Lint `path` in a fresh process from its folder (whose pyproject.toml, if any, applies)."""
    argv = [sys.executable, "-m", "contiglint", "--no-cache", "-j1", "--exit-zero",
            "--format", "json", str(path)]
    if rules == "all":
        argv[3:3] = ["--select", codes()]
    proc = subprocess.run([sys.executable, "-c", MEASURE, str(timeout), *argv],
                          capture_output=True, text=True, cwd=str(path.parent))
    result = json.loads(proc.stdout)
    result["summary"] = summarize(result)
    return result


def summarize(result: dict) -> str:
    if result["rc"] == "timeout":
        return result["stderr"]
    try:
        entries = json.loads(result["stdout"] or "[]")
    except json.JSONDecodeError:
        return f"rc {result['rc']}: {result['stderr'].strip()[-160:]}"
    errors = [e for e in entries if str(e.get("code", "")).startswith("E9")]
    if errors:
        first = errors[0]
        return f"{first['code']} {first.get('message', '')[:110]}"
    return f"{len(entries)} findings"


def row(name: str, size: int, lines: int, rules: str, result: dict) -> str:
    return (f"{name:<16} {size / MB:6.2f} {lines:>8} {rules:<8} {result['wall']:8.2f} "
            f"{result['cpu']:8.2f} {result['rss_kb'] / 1024:8.1f}  {result['summary']}")


HEADER = (f"{'file':<16} {'MB':>6} {'lines':>8} {'rules':<8} {'wall s':>8} {'cpu s':>8} "
          f"{'RSS MB':>8}  result")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(FILES))
    parser.add_argument("--rules", default="default,all")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--fit", type=int, default=None, metavar="BYTES",
                        help="shrink each file to 97%% of BYTES (e.g. contiglint's max-file-size, "
                        "5242880 by default): a run at that size")
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per lint run")
    parser.add_argument("--max-file-size", type=int, default=None,
                        help="the limit the runs are configured with (default: contiglint's)")
    parser.add_argument("--no-linearity", action="store_true")
    parser.add_argument("--no-limit-key", action="store_true",
                        help="configure no max-file-size (a version from before the key)")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in FILES]
    if unknown:
        raise SystemExit(f"pathological: unknown file {', '.join(unknown)} "
                         f"(known: {', '.join(FILES)})")
    rule_sets = args.rules.split(",")
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        configure(folder, args.max_file_size)
        unlimited = folder / "unlimited"  # the linearity check measures the analysis itself
        unlimited.mkdir(exist_ok=True)
        configure(unlimited, None if args.no_limit_key else 0)
        print(f"load average before: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
        print(HEADER)
        for name in names:
            text = FILES[name](args.scale)
            if args.fit and len(text) > 0.97 * args.fit:
                text = FILES[name](args.scale * 0.97 * args.fit / len(text))
            path = folder / f"{name}.py"
            path.write_text(text)
            for rules in rule_sets:
                print(row(name, len(text), text.count("\n"), rules,
                          measure(path, rules, args.timeout)), flush=True)
        if not args.no_linearity:
            print("\nlinearity: module_100k at 1/4, 1/2, 1x (max-file-size = 0)")
            print(HEADER)
            for rules in rule_sets:
                points = []
                for fraction in (0.25, 0.5, 1.0):
                    text = FILES["module_100k"](args.scale * fraction)
                    path = unlimited / f"module_{fraction}.py"
                    path.write_text(text)
                    result = measure(path, rules, args.timeout)
                    points.append(result)
                    print(row(f"module x{fraction}", len(text), text.count("\n"), rules,
                              result), flush=True)
                quarter, half, full = points
                for key in ("wall", "cpu", "rss_kb"):
                    second_quarter = half[key] - quarter[key]
                    second_half = full[key] - half[key]
                    slope = second_half / (2 * second_quarter) if second_quarter > 0 else 0.0
                    print(f"  {rules} {key}: slope {slope:.2f} (1.0 = linear)")
        print(f"load average after: {os.getloadavg()[0]:.1f}")


def configure(folder: Path, limit) -> None:
    config = folder / "pyproject.toml"
    config.write_text("[tool.contiglint]\n" +
                      (f"max-file-size = {limit}\n" if limit is not None else ""))


if __name__ == "__main__":
    main()
