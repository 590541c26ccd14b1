"""The static linter never imports, evaluates or executes the code it checks, and treats
configuration as data. Only `contiglint verify` and `contiglint run` execute code, and
`verify` says so and isolates each case in a subprocess with a timeout."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.clitools import ROOT, contiglint

# Each of these would create MARKER if any part of it were imported, executed or evaluated.
HOSTILE = {
    "top_level.py": "import torch\nopen({m!r}, 'w').write('module body ran')\n"
                    "x = torch.randn(2, 3, 4).transpose(1, 2).view(2, 12)\n",
    "main_guard.py": "import torch\nif __name__ == '__main__':\n"
                     "    __import__('os').system('touch ' + {m!r})\n",
    "defaults.py": "import torch\n"
                   "def f(x=open({m!r}, 'w'), y=torch.randn(2, 3).t()):\n"
                   "    return y.view(6)\n",
    "decorator.py": "import torch\n"
                    "@(lambda f: open({m!r}, 'w') and f)\n"
                    "def g(x):\n    return x.t().view(-1)\n",
    "class_body.py": "import torch\nclass C(torch.nn.Module):\n"
                     "    marker = exec('open(' + repr({m!r}) + ', \"w\")')\n"
                     "    def forward(self, x):\n        return x.transpose(0, 1).view(-1)\n",
    "annotations.py": "import torch\n"
                      "def h(x: eval('open(' + repr({m!r}) + ', \"w\")')) -> None:\n"
                      "    x.t().data_ptr()\n",
    "imports_sibling.py": "import torch\nimport hostile_sibling\nfrom hostile_sibling import *\n"
                          "y = hostile_sibling.make().view(2)\n",
    "hostile_sibling.py": "open({m!r}, 'w').write('imported')\n"
                          "def make():\n    return 1\n",
    "encoding_trick.py": "# -*- coding: utf-8 -*-\nimport torch\n"
                         "x = torch.randn(2, 2).t()  # \\\nopen({m!r}, 'w')\n",
}


def hostile_tree(tmp_path) -> Path:
    marker = tmp_path / "MARKER"
    for name, text in HOSTILE.items():
        (tmp_path / "src" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "src" / name).write_text(text.format(m=str(marker)))
    return marker


def test_linting_fixing_and_diffing_never_execute_the_checked_code(tmp_path):
    marker = hostile_tree(tmp_path)
    for args in (["src"], ["--strict", "src"], ["--diff", "src"],
                 ["--fix", "--unsafe-fixes", "src"], ["--format", "sarif", "src"]):
        process = contiglint("--no-cache", *args, cwd=tmp_path)
        assert process.returncode in (0, 1), (args, process.stderr)
        assert not marker.exists(), f"contiglint {' '.join(args)} executed the checked code"
    # Through stdin and flake8, too.
    text = HOSTILE["top_level.py"].format(m=str(marker))
    assert contiglint("-", "--no-cache", cwd=tmp_path, stdin=text).returncode == 1
    assert not marker.exists()


def test_in_process_linting_imports_nothing_from_the_checked_tree(tmp_path, monkeypatch):
    from contiglint.engine import fix_source, lint_source

    marker = hostile_tree(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path / "src"))  # importable, if anything tried
    # Warm up on a harmless module first: fixing imports libcst (and its dependencies) on
    # first use, which is the fixer's own library, not something of the checked tree.
    harmless = ("import torch\n\n\ndef f():\n    x = torch.randn(4, 6).t()\n"
                "    x.contiguous().add_(1)\n    return x\n")  # CTG111: a statement fix
    lint_source(harmless, "warm.py")
    assert fix_source(harmless, "warm.py", unsafe=True).applied == 1
    before = set(sys.modules)
    for path in sorted((tmp_path / "src").glob("*.py")):
        lint_source(path.read_text(), str(path))
        fix_source(path.read_text(), str(path), unsafe=True)
    assert not marker.exists()
    assert "hostile_sibling" not in sys.modules
    assert not {name for name in set(sys.modules) - before if not name.startswith("contiglint")}


def test_configuration_values_are_data(tmp_path):
    marker = tmp_path / "MARKER"
    payload = f"__import__('os').system('touch {marker}')"
    (tmp_path / "m.py").write_text("import torch\nx = torch.randn(2, 3).t().view(6)\n")
    cases = {
        "select": f'[tool.contiglint]\nselect = ["{payload}"]\n',
        "exclude": f'[tool.contiglint]\nextend-exclude = ["{payload}"]\n',
        "per-file": f'[tool.contiglint.per-file-ignores]\n"{payload}" = ["CTG101"]\n',
        "option": f'[tool.contiglint.CTG101]\nfix-style = "{payload}"\n',
        "strict": f'[tool.contiglint]\nstrict = "{payload}"\n',
    }
    for name, toml in cases.items():
        (tmp_path / "pyproject.toml").write_text(toml)
        process = contiglint("--no-cache", "m.py", cwd=tmp_path)
        assert process.returncode in (0, 1, 2), (name, process.stderr)
        assert "Traceback" not in process.stderr, (name, process.stderr)
        assert not marker.exists(), f"the {name} value was evaluated"
    process = contiglint("--no-cache", "--select", payload, "m.py", cwd=tmp_path)
    assert process.returncode == 2 and not marker.exists()


# Where code may be executed on purpose: the verifier and the runtime watch mode.
EXECUTES_ON_PURPOSE = ("verify", "runtime")
# Dynamic imports of contiglint's own modules, with names fixed in the source.
OWN_IMPORTS = {("cli.py", "import_module"), ("rules/__init__.py", "import_module")}
# Code contiglint writes itself: the analysis's records' `__init__`, made at import from their
# own dataclass fields, as `dataclasses` makes its own (one `exec` of one `compile`, checked below).
OWN_CODE = {("layout/model/frozen.py", "exec"), ("layout/model/frozen.py", "compile")}
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "import_module", "run_path",
                   "run_module", "system", "popen", "Popen", "spawn", "execv", "execvp",
                   "literal_eval", "loads", "load"}


def test_static_package_has_no_dynamic_execution():
    package = ROOT / "contiglint"
    offences = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if relative.split("/")[0] in EXECUTES_ON_PURPOSE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else \
                func.attr if isinstance(func, ast.Attribute) else ""
            if name not in FORBIDDEN_CALLS or (relative, name) in OWN_IMPORTS | OWN_CODE:
                continue
            if name in ("loads", "load") and not _unsafe_loader(func):
                continue  # json/toml (the cache, the config) or contiglint's own Cache.load
            if name == "compile" and isinstance(func, ast.Attribute):
                continue  # re.compile
            offences.append(f"{relative}:{node.lineno}: {ast.unparse(node)[:60]}")
    assert offences == []
    # The records' `__init__` is the only code contiglint compiles: made from field names.
    frozen = ast.parse((package / "layout" / "model" / "frozen.py").read_text())
    compiling = [(function.name, node.func.id) for function in ast.walk(frozen)
                 if isinstance(function, ast.FunctionDef) for node in ast.walk(function)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                 and node.func.id in ("exec", "compile")]
    assert sorted(compiling) == [("_assigning_init", "compile"), ("_assigning_init", "exec")]
    # The allowed dynamic imports take names written in contiglint, never from checked code.
    cli_text = (package / "cli.py").read_text()
    assert "importlib.import_module(module_name)" in cli_text and "DELEGATES[command]" in cli_text


def _unsafe_loader(func: ast.AST) -> bool:
    """`pickle.load(...)` and friends run code while loading; json and toml do not."""
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
        func.value.id in ("pickle", "marshal", "yaml", "dill", "cloudpickle", "torch", "shelve")


def test_verify_says_it_executes_code_in_subprocesses_with_timeouts(tmp_path):
    process = contiglint("verify", "--help", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    text = " ".join(process.stdout.split()).lower()
    assert "executes" in text and "subprocess" in text and "timeout" in text
    assert "trust" in text
