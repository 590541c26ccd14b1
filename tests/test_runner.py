"""Many files: prefilter, worker pool, deterministic order, the cache."""
from __future__ import annotations

import ast

import json
import shutil
import os
import subprocess
import sys

import pytest

from tests.clitools import (
    BAD, BAD_LINE, CLEAN, EXAMPLE_CONFIG, EXAMPLE_SELECT, FIXED, contiglint, environment, write,
)
from contiglint.cache import Cache
from contiglint.config import Config
from contiglint.findings import Finding
from contiglint.runner import RunOptions, run
from contiglint.settings import Settings


def make_tree(tmp_path, count=12):
    for number in range(count):
        write(tmp_path, f"pkg{number % 3}/m{number:02d}.py", BAD if number % 2 else CLEAN)


def test_parallel_and_serial_runs_give_identical_ordered_output(tmp_path):
    make_tree(tmp_path)
    serial = contiglint("--no-cache", "-j", "1", ".", cwd=tmp_path)
    parallel = contiglint("--no-cache", "-j", "4", ".", cwd=tmp_path)
    assert serial.returncode == parallel.returncode == 1
    assert serial.stdout == parallel.stdout
    paths = [line.split(":")[0] for line in serial.stdout.splitlines() if "CTG101" in line]
    assert paths == sorted(paths) and len(paths) == 6


def test_pool_in_process_matches_serial(tmp_path):
    make_tree(tmp_path, 16)
    config = EXAMPLE_CONFIG
    parallel = run([str(tmp_path)], config, RunOptions(jobs=3))
    serial = run([str(tmp_path)], config, RunOptions(jobs=1))
    assert [o.path for o in parallel.outcomes] == [o.path for o in serial.outcomes]
    assert parallel.findings == serial.findings and len(serial.findings) == 8


def test_a_run_collects_garbage_less_often_and_restores_the_thresholds(tmp_path, monkeypatch):
    """`run` raises the collector's thresholds while it lints (runner.GC_THRESHOLDS) and puts
    back whatever its caller (a server, a plugin host) had set, also when it fails."""
    import gc
    from contiglint import runner
    make_tree(tmp_path, 4)
    seen = []
    real = runner.process_files
    monkeypatch.setattr(runner, "process_files",
                        lambda *a, **k: seen.append(gc.get_threshold()) or real(*a, **k))
    before = gc.get_threshold()
    try:
        gc.set_threshold(500, 7, 3)
        result = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions(jobs=1))
        assert gc.get_threshold() == (500, 7, 3)
        monkeypatch.setattr(runner, "process_files", lambda *a, **k: 1 / 0)
        try:
            run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions(jobs=1))
        except ZeroDivisionError:
            pass
        assert gc.get_threshold() == (500, 7, 3)
    finally:
        gc.set_threshold(*before)
    assert seen == [runner.GC_THRESHOLDS] and len(result.findings) == 2


def test_what_each_file_leaves_alive_is_frozen_during_a_run_and_given_back_after(
        tmp_path, monkeypatch):
    """Within a run, each file's step collects its garbage cycles and freezes what it leaves
    alive (runner.one_file), so no later collection scans it again; the run gives the
    frozen objects back to the collector when it ends, and a step called outside a run
    (a server linting one buffer) freezes nothing."""
    import gc
    from contiglint import runner
    make_tree(tmp_path, 4)
    frozen = []
    real = runner.second_pass.__wrapped__

    def second_pass(*args, **kwargs):
        frozen.append(gc.get_freeze_count())
        return real(*args, **kwargs)
    monkeypatch.setattr(runner, "second_pass", runner.one_file(second_pass))
    gc.unfreeze()
    result = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions(jobs=1))
    assert len(result.findings) == 2
    assert len(frozen) == 4 and all(count > 0 for count in frozen)  # the first pass froze
    assert gc.get_freeze_count() == 0
    runner.process_file(str(tmp_path / sorted(os.listdir(tmp_path))[0]), EXAMPLE_CONFIG,
                        RunOptions())
    assert gc.get_freeze_count() == 0


def test_files_without_sink_tokens_are_parsed_but_not_analysed(tmp_path, monkeypatch):
    # The prefilter skips the analysis of text that cannot hold a finding, but a file that
    # does not parse is still reported, once, with its position.
    analysed = []
    monkeypatch.setattr("contiglint.engine.analyze_module",
                        lambda tree, source, *context: analysed.append(tree) or [])
    write(tmp_path, "plain.py", "def f(:\n")
    write(tmp_path, "fine.py", "def f(a):\n    pass\n")
    result = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions(jobs=1))
    assert [(os.path.basename(e.path), e.line, e.kind) for e in result.all_errors] == \
        [("plain.py", 1, "syntax")]
    assert result.findings == [] and analysed == []


def _every_name(tree):
    """Every str field of every node but constants, found by walking each field."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            continue
        for _, value in ast.iter_fields(node):
            if isinstance(value, str):
                names.add(value)
            elif isinstance(value, list):
                names.update(v for v in value if isinstance(v, str))
    return names


def test_code_names_read_from_the_index_are_every_name_of_the_code():
    """The comments-and-strings check reads the code's names from the shared index (which
    does not walk into aliases or childless nodes): it must find exactly the names a walk of
    every field finds, on this package's own modules and on every kind of binding."""
    from pathlib import Path

    from contiglint import engine
    from contiglint.layout.syntax.index import ModuleIndex

    every_kind = (
        "import a.b as c, d\nfrom .e import f as g, h\nfrom i.j import *\n"
        "@deco(key=1)\nclass K(Base, metaclass=M):\n    attr: int = 2\n"
        "    def m(self, p, /, q=3, *r, s, **t):\n        global gg\n"
        "        def inner():\n            nonlocal p\n        lam = lambda u, *v: u.w\n"
        "        try:\n            pass\n        except E as err:\n            pass\n"
        "        match p:\n            case Point(x=px, y=[*rest]) | {'k': kv, **more}:\n"
        "                pass\n            case other:\n                pass\n"
        "        return f(q, kw=s).attr2['s']\n")
    texts = [every_kind] + [path.read_text(encoding="utf-8") for path in
                            sorted(Path(engine.__file__).parent.rglob("*.py"))]
    for text in texts:
        tree = ast.parse(text)
        assert ModuleIndex(tree).names == _every_name(tree)


def test_word_tokens_only_in_comments_and_strings_skip_the_analysis(monkeypatch):
    """`distributed` in a license header or a docstring is no collective: a text whose
    prefilter tokens are all words that no name of its code holds is parsed, not analysed.
    Nor is one whose code holds a token only inside a longer name, when the rule needs a
    call of one of its functions (`Rule.names`) and the code names none. A keyword token
    (`return`), or a real collective through an alias is analysed, and found."""
    from contiglint import engine

    analysed, parsed = [], []
    real, real_parse = engine.analyze_module, engine.parse
    monkeypatch.setattr(engine, "analyze_module",
                        lambda *a, **k: analysed.append(a[2]) or real(*a, **k))
    monkeypatch.setattr(engine, "parse", lambda text, path: parsed.append(path) or
                        real_parse(text, path))
    header = "# Licensed ... distributed under the License is distributed on an AS IS BASIS\n"
    # the default rules but CTG114, which reads every module that imports (a contract may
    # come from any import)
    default = Settings(ignore=("CTG114",))
    texts = {
        "header.py": header + '"""Sends nothing: see all_reduce in the docs."""\nimport torch\n'
                     "x = torch.ones(2).t()\n",
        "longer.py": header + "from .utils import is_torch_distributed_available\n",
        "collective.py": header + "import torch\nfrom torch import distributed as d\n\n\n"
                         "def sync(x):\n    d.all_gather([torch.empty(4, 3)], x.t())\n",
        "renamed.py": "import torch\nfrom torch.distributed import all_reduce as ar\n\n\n"
                      "def sync(x):\n    ar(x.t())\n",
        "no_collective.py": "import torch.distributed as dist\n\n\n"
                            "def rank(x):\n    return dist.get_rank() + x.t().sum()\n",
        # the default rules' looks at the text find no loop for a `.contiguous()` call to
        # be in, no `memory_format` and no write into a copy: not even parsed
        "in_a_comment.py": header + "# y = x.contiguous() would copy\nx = 1\n",
        # ... a loop but no other: parsed, for CTG109's look at the syntax
        "in_a_loop_comment.py": header + "# y = x.contiguous() would copy\n"
                                "for i in range(2):\n    x = i\n",
    }
    found = {name: engine.lint_source(text, name, default) for name, text in texts.items()}
    assert analysed == ["collective.py", "renamed.py"]
    assert "in_a_comment.py" not in parsed and "in_a_loop_comment.py" in parsed
    # words only, and no collective named as a word: not even parsed (`Rule.may_fire_text`)
    assert "longer.py" not in parsed and "header.py" in parsed
    assert [f.code for f in found["collective.py"].findings] == ["CTG107"]
    assert [f.code for f in found["renamed.py"].findings] == ["CTG107"]
    analysed.clear()
    # a token that is no word is taken as code wherever it is: the words are not looked at
    views = Settings(select=("CTG101",))
    engine.lint_source(header + "# y = x.view(2) would raise\nx = 1\n", "v.py", views)
    assert analysed == ["v.py"]
    analysed.clear()
    escapes = Settings(select=("CTG102",))
    engine.lint_source("# nothing to split here\ndef f(x):\n    return x[:, 1]\n", "e.py",
                       escapes)
    assert analysed == ["e.py"]
    # a syntax error is still reported
    assert engine.lint_source(header + "def f(:\n", "bad.py", default).errors


@pytest.mark.parametrize("ascii_text, spelled", [
    # words only: the collective's name decides whether the text is parsed
    # (`Rule.may_fire_text`)
    ("import torch\nfrom torch.distributed import all_reduce as ar\n\n\n"
     "def sync(x):\n    ar(torch.transpose(x, 0, 1))\n", "all_reduce"),
    # a token that is no word: `.contiguous(` decides whether the text is analysed
    ("import torch\n\n\ndef f(x):\n    for i in range(3):\n"
     "        z = x.t().contiguous()\n        z.add_(1)\n    return z\n", "contiguous"),
])
def test_prefilter_reads_identifiers_as_python_does(ascii_text, spelled):
    """Python reads an identifier in its NFKC form: `\uff41ll_reduce` (a fullwidth `a`) is
    `all_reduce`, so the text calls what the prefilter looks for, spelled otherwise."""
    import unicodedata

    from contiglint import engine, prefilter

    other = "\uff41" + spelled[1:] if spelled[0] == "a" else "\uff43" + spelled[1:]
    assert unicodedata.normalize("NFKC", other) == spelled
    text = ascii_text.replace(spelled, other)
    ascii_found = [(f.code, f.line, f.column) for f in
                   engine.lint_source(ascii_text, "a.py", Settings()).findings]
    assert ascii_found
    assert [(f.code, f.line, f.column) for f in
            engine.lint_source(text, "a.py", Settings()).findings] == ascii_found
    assert prefilter.may_have_findings(text, Settings())


def test_project_check_summarizes_each_module_once(tmp_path, monkeypatch):
    """The lint phase of a project run reuses the contract summary phase 1 made of the same
    text; a fix run, whose rewritten text differs, summarizes it again."""
    from contiglint.layout.contracts import project as contracts

    made = []
    original = contracts.summarize

    def counted(tree, module, path, *args, **kwargs):
        made.append(os.path.basename(path))
        return original(tree, module, path, *args, **kwargs)

    monkeypatch.setattr(contracts, "summarize", counted)
    monkeypatch.setattr("contiglint.project_pass.summarize", counted)
    make_tree(tmp_path, 4)
    checked = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions(jobs=1))
    assert len(checked.findings) == 2
    assert sorted(made) == ["m00.py", "m01.py", "m02.py", "m03.py"]
    made.clear()
    fixed = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions("fix", jobs=1))
    assert fixed.fixed == 2
    assert made.count("m01.py") > 1 and made.count("m00.py") == 1


def test_fix_mode_writes_every_file_in_parallel(tmp_path):
    make_tree(tmp_path)
    result = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions("fix", jobs=2))
    assert result.fixed == 6 and result.findings == [] and result.all_errors == []
    assert all(path.read_text() in (FIXED, CLEAN) for path in tmp_path.rglob("*.py"))


def test_cache_is_written_and_reused(tmp_path):
    path = write(tmp_path, "bad.py", BAD)
    assert contiglint("bad.py", cwd=tmp_path).returncode == 1
    entries = list((tmp_path / ".contiglint_cache").rglob("*.json"))
    assert len(entries) == 1
    assert (tmp_path / ".contiglint_cache" / "CACHEDIR.TAG").exists()
    # Plant a different finding under the same key: a second run must report it, which shows
    # the cache is read instead of the file being linted again.
    key = Cache.key(BAD, "bad.py", EXAMPLE_CONFIG.settings)
    assert entries[0].name == key + ".json"
    planted = Finding("bad.py", 1, 1, 1, 2, "CTG101", "from the cache")
    entries[0].write_text(json.dumps({"findings": [planted.as_json()], "errors": []}))
    assert "from the cache" in contiglint("bad.py", cwd=tmp_path).stdout
    # A changed file is a different key, so the planted entry no longer applies.
    path.write_text(BAD + "\n")
    assert "from the cache" not in contiglint("bad.py", cwd=tmp_path).stdout


def test_corrupt_cache_entry_is_ignored(tmp_path):
    write(tmp_path, "bad.py", BAD)
    contiglint("bad.py", cwd=tmp_path)
    for entry in (tmp_path / ".contiglint_cache").rglob("*.json"):
        entry.write_bytes(b"\x00{not json")
    process = contiglint("bad.py", cwd=tmp_path)
    assert process.returncode == 1 and f"bad.py:{BAD_LINE}:" in process.stdout
    entry = next((tmp_path / ".contiglint_cache").rglob("*.json"))
    entry.write_text(json.dumps({"findings": [{"path": "bad.py"}], "errors": []}))
    assert f"bad.py:{BAD_LINE}:" in contiglint("bad.py", cwd=tmp_path).stdout


@pytest.mark.parametrize("asked", [
    "not a list", [["lookup", "pkg.f"]], [["lookup", "pkg.f", 3]], [[1, "pkg.f", "ab"]],
])
def test_a_result_keeps_its_contract_answers_and_corrupt_ones_are_a_miss(tmp_path, asked):
    """cache.ANSWERS entries keep the answers a lint got from the contracts; an entry whose
    answers are not (what, name, answer) texts is a miss, never a result without them."""
    from contiglint.engine import LintResult
    cache = Cache(str(tmp_path))
    result = LintResult([Finding("m.py", 1, 1, 1, 2, "CTG114", "kept")], [])
    answers = {("lookup", "pkg.f"): "0af1", ("compiled", "pkg._C"): "77b2"}
    cache.store("k" * 64, result, answers)
    assert cache.load_answered("k" * 64, "") == (result, answers)
    assert cache.load("k" * 64, "") == result
    cache.store("j" * 64, result)  # stored without answers: none were asked
    assert cache.load_answered("j" * 64, "") == (result, {})
    entry = next(tmp_path.rglob("k" * 64 + ".json"))
    data = json.loads(entry.read_text())
    data["asked"] = asked
    entry.write_text(json.dumps(data))
    assert cache.load_answered("k" * 64, "") is None


def test_no_cache_writes_no_cache_directory(tmp_path):
    write(tmp_path, "bad.py", BAD)
    assert contiglint("--no-cache", "bad.py", cwd=tmp_path).returncode == 1
    assert not (tmp_path / ".contiglint_cache").exists()


def test_settings_are_part_of_the_cache_key(tmp_path):
    write(tmp_path, "bad.py", BAD)
    assert contiglint("bad.py", cwd=tmp_path).returncode == 1
    assert contiglint("--ignore", "CTG101", "bad.py", cwd=tmp_path).returncode == 0
    assert contiglint("bad.py", cwd=tmp_path).returncode == 1


def test_concurrent_runs_share_the_cache_safely(tmp_path):
    make_tree(tmp_path, 24)
    command = [sys.executable, "-m", "contiglint", *EXAMPLE_SELECT, "-j", "2", "."]
    runs = [subprocess.Popen(command, cwd=tmp_path, env=environment(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = [process.communicate(timeout=120) for process in runs]
    assert [process.returncode for process in runs] == [1] * 4
    assert len({stdout for stdout, _ in outputs}) == 1 and all(err == "" for _, err in outputs)
    assert not list((tmp_path / ".contiglint_cache").rglob(".contiglint-*.tmp"))


# CTG101 alone: no enabled rule reads contracts, so each file is linted on its own and the
# cache's stat index is used (a run that reads contracts reads every text for them)
VIEWS = Config(settings=Settings(select=("CTG101",)))


def _read_counted(monkeypatch) -> list[str]:
    from contiglint import runner

    read, real = [], runner.read_source
    monkeypatch.setattr(runner, "read_source",
                        lambda path, **kwargs: read.append(os.path.basename(path)) or
                        real(path, **kwargs))
    return read


def _settled(monkeypatch) -> None:
    """Files written by the test count as settled (`SETTLED_NS`): the stat index notes them."""
    from contiglint import files

    monkeypatch.setattr(files, "SETTLED_NS", 0)


def test_a_file_whose_status_is_unchanged_is_not_read_again(tmp_path, monkeypatch):
    make_tree(tmp_path, 6)
    options = RunOptions(jobs=1, cache_dir=str(tmp_path / "cache"))
    read = _read_counted(monkeypatch)
    _settled(monkeypatch)
    first = run([str(tmp_path)], VIEWS, options)
    assert len(read) == 6 and len(first.findings) == 3
    read.clear()
    loaded, real_load = [], Cache.load
    monkeypatch.setattr(Cache, "load", lambda self, key, text: loaded.append(key) or
                        real_load(self, key, text))
    again = run([str(tmp_path)], VIEWS, options)
    assert read == [] and again.findings == first.findings
    # a clean result is known from the index: only the three files with a finding read an entry
    assert len(loaded) == 3
    # Another text of the same size, with the old modification time put back: the change
    # time still differs, so the file is read and linted again.
    path = tmp_path / "pkg1" / "m01.py"
    status = path.stat()
    path.write_text(BAD.replace("transpose(1, 2)", "flatten(1, 2)  "))  # a contiguous view
    assert path.stat().st_size == status.st_size
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    changed = run([str(tmp_path)], VIEWS, options)
    assert read == ["m01.py"] and len(changed.findings) == 2


def test_a_cached_run_hashes_each_text_it_reads_once(tmp_path, monkeypatch):
    """The result's cache key and the stat index's entry come from one digest of the text."""
    import hashlib
    import types

    from contiglint import source

    make_tree(tmp_path, 4)
    hashed = []
    monkeypatch.setattr(source, "hashlib", types.SimpleNamespace(
        blake2b=lambda data, **kwargs: hashed.append(data) or hashlib.blake2b(data, **kwargs)))
    _settled(monkeypatch)
    result = run([str(tmp_path)], VIEWS, RunOptions(jobs=1, cache_dir=str(tmp_path / "c")))
    assert len(result.findings) == 2 and len(hashed) == 4  # one per file
    assert run([str(tmp_path)], VIEWS, RunOptions(jobs=1)).findings == result.findings


def test_a_file_changed_within_the_settling_time_is_read(tmp_path, monkeypatch):
    """Without `_settled`, a file written a moment ago is never taken from its status: a
    write in the same tick of the file system's clock could leave the status as it was."""
    make_tree(tmp_path, 2)
    options = RunOptions(jobs=1, cache_dir=str(tmp_path / "cache"))
    read = _read_counted(monkeypatch)
    run([str(tmp_path)], VIEWS, options)
    run([str(tmp_path)], VIEWS, options)
    assert len(read) == 4
    assert not list((tmp_path / "cache").rglob("files.json"))


def _indexed(tmp_path, monkeypatch, files: int, jobs: int):
    """A tree linted once with the stat index noting its files: the options, the result and
    the index's file."""
    make_tree(tmp_path, files)
    options = RunOptions(jobs=jobs, cache_dir=str(tmp_path / "cache"))
    _settled(monkeypatch)
    first = run([str(tmp_path)], VIEWS, options)
    [index] = (tmp_path / "cache").rglob("files.json")
    return options, first, index


def test_a_corrupt_stat_index_is_ignored(tmp_path, monkeypatch):
    options, first, index = _indexed(tmp_path, monkeypatch, 4, 1)
    read = _read_counted(monkeypatch)
    for content in (b"\x00{not json", b'{"files": []}', b'{"files": {"x": 1}}',
                    json.dumps({"files": {str(p): [1, "digest", ""] for p in
                                          tmp_path.rglob("*.py")}}).encode(),
                    json.dumps({"files": {str(p): entry[:-2] + [1, 2] for p, entry in
                                          json.loads(index.read_text())["files"].items()}
                                }).encode()):
        index.write_bytes(content)
        assert run([str(tmp_path)], VIEWS, options).findings == first.findings
    assert len(read) == 20


def test_the_stat_index_is_shared_by_parallel_workers(tmp_path, monkeypatch):
    options, first, index = _indexed(tmp_path, monkeypatch, 12, 2)
    noted = json.loads(index.read_text())["files"]
    assert sorted(noted) == sorted(os.path.abspath(p) for p in tmp_path.rglob("*.py")
                                   if "cache" not in p.parts)
    # Every file answered by the index: no worker is started.
    import concurrent.futures

    real_pool = concurrent.futures.ProcessPoolExecutor
    pools = []
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor",
                        lambda *a, **k: pools.append(a) or real_pool(*a, **k))
    assert run([str(tmp_path)], VIEWS, options).findings == first.findings
    assert pools == []
    # Nine files changed: they go to the workers, and the outcomes keep the files' order.
    for number in range(0, 9):
        write(tmp_path, f"pkg{number % 3}/m{number:02d}.py", BAD if number % 2 == 0 else CLEAN)
    fresh = run([str(tmp_path)], VIEWS, RunOptions(jobs=1))
    mixed = run([str(tmp_path)], VIEWS, options)
    assert len(pools) == 1 and len(fresh.findings) == 7
    assert [o.path for o in mixed.outcomes] == [o.path for o in fresh.outcomes]
    assert mixed.findings == fresh.findings


PROJECT = {  # cross-module contracts of every kind, and modules that meet none of them
    "pkg/__init__.py": "",
    "pkg/utils.py": "def torch_check(cond, message):\n    if not cond:\n"
                    "        raise RuntimeError(message)\n",
    "pkg/kernels.py": "import torch\nfrom .utils import torch_check\n\n\ndef fused(x, y):\n"
                      "    torch._check(x.is_contiguous())\n"
                      "    torch_check(y.is_contiguous(), 'y')\n    return x + y\n\n\n"
                      "def raw(t):\n    return t.data_ptr()\n",
    "pkg/ops.py": "from .kernels import fused, raw\n\n\ndef wrapper(x, y):\n"
                  "    return fused(x, y), raw(x)\n",
    "pkg/color/__init__.py": "from .gray import to_gray\n",  # re-exports only, no `def `
    "pkg/color/gray.py": "def to_gray(x):\n    return x.mean(0)\n",
    "pkg/model.py": "import torch\nfrom .ops import wrapper\nfrom pkg.color import to_gray\n"
                    "from . import _C\n\n\ndef forward(h):\n"
                    "    return wrapper(h.t(), h.t()), to_gray(h.t()), _C.blend(h.t())\n",
    "pkg/plain.py": BAD + "\n\ndef helper(x):\n    return x.view(-1)\n",
    "pkg/quiet.py": CLEAN,
}


def test_speculative_results_are_the_results_linted_with_the_project(tmp_path, monkeypatch):
    """The first pass lints each file with stand-in contracts and keeps every answer the lint
    got from them; the second pass keeps that result only where the project's contracts
    answer the same (project_pass.FirstPass). On a project with cross-module contracts (through a
    wrapper, an imported check function, a raw read, a re-exporting package, a compiled
    module), serial and parallel, default and strict, with and without a cache, the results
    are those of linting every file again with the project's contracts; the files that call
    into another module's contract are linted again, the others are not."""
    from contiglint import project_pass
    from contiglint.config import Config

    for name, text in PROJECT.items():
        write(tmp_path, name, text)
    kept, real = [], project_pass._stands

    def counted(path, project, first):
        kept.append((os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path),
                     real(path, project, first)))
        return kept[-1][1]

    monkeypatch.setattr(project_pass, "_stands", counted)
    for strict in (False, True):
        config = Config(settings=Settings(select=("CTG",), extend_select=("CTG101", "CTG114"),
                                          strict=strict))
        outcomes = {}
        for jobs, cache in ((1, None), (2, None), (1, str(tmp_path / "cache"))):
            kept.clear()
            result = run([str(tmp_path / "pkg")], config,
                         RunOptions(jobs=jobs, cache_dir=cache))
            outcomes[jobs, cache] = [(o.path, o.findings, o.errors) for o in result.outcomes]
            if jobs == 1 and cache is None:
                linted_again = sorted(name for name, stands in kept if not stands)
                # kernels.py: its own contract needs the project's check functions
                assert linted_again == ["pkg/kernels.py", "pkg/model.py", "pkg/ops.py"], kept
                assert len(kept) == len(PROJECT)
        monkeypatch.setattr(project_pass, "_stands", lambda path, project, first: False)
        for jobs in (1, 2):
            again = run([str(tmp_path / "pkg")], config, RunOptions(jobs=jobs))
            expected = [(o.path, o.findings, o.errors) for o in again.outcomes]
            assert all(found == expected for found in outcomes.values())
        monkeypatch.setattr(project_pass, "_stands", counted)
        codes = sorted((os.path.basename(path), f.line, f.code) for path, found, _ in expected
                       for f in found)
        assert ("model.py", 8, "CTG114") in codes and ("plain.py", 4, "CTG101") in codes
        assert not any(errors for _, _, errors in expected)
        shutil.rmtree(tmp_path / "cache")


def test_a_changed_contract_relints_only_the_files_that_read_it(tmp_path, monkeypatch):
    """A cached result linted with contracts is kept with the answers its lint got from them
    (cache.ANSWERS): when one module's contract changes, a warm run lints that module and the
    files whose answers changed (ops.py calls `fused`, model.py calls ops.py's wrapper, whose
    contract follows `fused`'s), not the others, and finds what a run without a cache finds.
    Unchanged, nothing is linted."""
    from contiglint import project_pass, runner
    from contiglint.config import Config

    for name, text in PROJECT.items():
        write(tmp_path, name, text)
    linted, real = [], runner.lint_source

    def counted(text, path, *args, **kwargs):
        linted.append(os.path.relpath(path, tmp_path))
        return real(text, path, *args, **kwargs)

    monkeypatch.setattr(runner, "lint_source", counted)
    monkeypatch.setattr(project_pass, "lint_source", counted)
    config = Config(settings=Settings(select=("CTG",), extend_select=("CTG101", "CTG114")))
    cache = RunOptions(jobs=1, cache_dir=str(tmp_path / "cache"))

    def warm() -> list:
        linted.clear()
        result = run([str(tmp_path / "pkg")], config, cache)
        assert result.findings == run([str(tmp_path / "pkg")], config,
                                      RunOptions(jobs=2)).findings
        return sorted(set(linted))

    kernels, plain = tmp_path / "pkg" / "kernels.py", tmp_path / "pkg" / "plain.py"
    first = run([str(tmp_path / "pkg")], config, cache)
    assert ("model.py", 8, "CTG114") in {(os.path.basename(f.path), f.line, f.code)
                                         for f in first.findings}
    assert warm() == []
    # a new contract that no other module reads: only its module is linted again
    plain.write_text(PROJECT["pkg/plain.py"] + "\n\ndef raw(t):\n    return t.data_ptr()\n")
    assert warm() == ["pkg/plain.py"]
    # `fused` no longer requires x to be contiguous, nor `raw` t
    kernels.write_text(PROJECT["pkg/kernels.py"].replace(
        "    torch._check(x.is_contiguous())\n", "").replace("    return t.data_ptr()\n",
                                                            "    return t\n"))
    assert warm() == ["pkg/kernels.py", "pkg/model.py", "pkg/ops.py"]
    assert run([str(tmp_path / "pkg")], config, cache).findings != first.findings
    # back: the texts and the contracts of the run before last, whose results are all kept
    kernels.write_text(PROJECT["pkg/kernels.py"])
    assert warm() == []


def test_without_a_rule_that_reads_contracts_none_is_computed(tmp_path, monkeypatch):
    """Only the contract sinks read the contracts (CTG114; CTG106 reads them with CTG114 on):
    with no such rule enabled, neither the project's contracts nor a module's own are made,
    and every other rule reports what it reports when they are computed."""
    from contiglint import engine, project_pass
    from contiglint.config import Config
    from contiglint.layout.contracts import project as contracts

    for name, text in PROJECT.items():
        write(tmp_path, name, text)
    write(tmp_path, "pkg/ext.py", "import torch\nfrom torch.utils.cpp_extension import load\n"
          "ext = load('ext', ['ext.cpp'])\n\n\ndef run(x):\n    y = ext.forward(x)\n"
          "    return y.view(-1), x.t().contiguous()\n")
    made = []
    original = contracts.summarize
    monkeypatch.setattr(contracts, "summarize",
                        lambda *a, **k: made.append(a[2]) or original(*a, **k))
    monkeypatch.setattr(project_pass, "summarize", contracts.summarize)
    for select in (("CTG",), ("CTG", "CTG101", "CTG106", "CTG113")):
        config = Config(settings=Settings(select=select, ignore=("CTG114",), strict=True))
        found = {}
        for jobs in (1, 2):
            made.clear()
            result = run([str(tmp_path / "pkg")], config, RunOptions(jobs=jobs))
            assert made == [] and result.all_errors == []
            found[jobs] = result.findings
        monkeypatch.setattr(engine, "reads_contracts", lambda rules: True)
        monkeypatch.setattr(project_pass, "reads_contracts", lambda rules: True)
        computed = run([str(tmp_path / "pkg")], config, RunOptions(jobs=1))
        assert made  # this time the contracts were computed
        monkeypatch.undo()
        monkeypatch.setattr(contracts, "summarize",
                            lambda *a, **k: made.append(a[2]) or original(*a, **k))
        monkeypatch.setattr(project_pass, "summarize", contracts.summarize)
        assert found[1] == found[2] == computed.findings
    assert {f.code for f in computed.findings} >= {"CTG101", "CTG106"}
    # what the flow pass still needs of them: the names bound to extension modules, whose
    # calls are opaque
    import ast
    from contiglint.layout.flow.program import Program
    from contiglint.source import SourceMap
    path = tmp_path / "pkg" / "ext.py"
    text = path.read_text()
    known = [Program(ast.parse(text), SourceMap(text), str(path), contracts=flag).extension_names
             for flag in (True, False)]
    assert known[0] == known[1] == {"ext": True}  # run() passes it `.contiguous()` tensors


CONTRACT_CALLERS = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": "def kernel(packed):\n    assert packed.is_contiguous(), 'dense only'\n"
                      "    return packed * 2\n",
    "pkg/wrap.py": "from pkg.kernels import kernel\n\n\ndef twice(y):\n    return kernel(y)\n",
    "pkg/caller.py": "from pkg.wrap import twice\n\n\ndef use(x):\n    return twice(x.t())\n",
    "pkg/other.py": "import torch\n\n\ndef use(x):\n    return torch.relu(x.t())\n",
    "pkg/ext.py": "import fused_cuda\n\n\ndef run(x):\n    fused_cuda.forward(x.contiguous())\n"
                  "    return fused_cuda.backward(x.t())\n",
    # enough files for workers (`runner.SERIAL_BELOW`) with two jobs
    **{f"pkg/plain{number}.py": f"SIZE = {number}\n" for number in range(3)},
}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_module_that_names_no_contract_is_not_analysed_for_one(tmp_path, monkeypatch, jobs):
    """CTG114's sinks are calls of functions with a contract: a module that names none (and
    calls no extension it passes `.contiguous()` tensors) is not analysed for it. The first
    pass cannot know another module's contracts; it records the question, and the second
    asks it again with the project's (`caller.py` names `twice`, whose contract comes from
    `kernels.py` through `wrap.py`). Each finding is the one a lint of every file finds."""
    from contiglint import engine

    for name, text in CONTRACT_CALLERS.items():
        write(tmp_path, name, text)
    analysed = []
    real = engine.analyze_module
    monkeypatch.setattr(engine, "analyze_module",
                        lambda *a, **k: analysed.append(os.path.basename(a[2])) or
                        real(*a, **k))
    default = Config(settings=Settings())
    result = run([str(tmp_path / "pkg")], default, RunOptions(jobs=jobs))
    found = {(os.path.basename(f.path), f.line, f.code) for f in result.findings}
    assert found == {("caller.py", 5, "CTG114"), ("ext.py", 6, "CTG114")}, found
    if jobs == 1:  # the workers' analyses are not seen here
        assert "other.py" not in analysed and "caller.py" in analysed
    monkeypatch.setattr(engine, "_may_meet_contract", lambda *a: True)
    assert run([str(tmp_path / "pkg")], default, RunOptions(jobs=1)).findings == \
        result.findings


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_project_run_whose_files_are_unchanged_reads_none(tmp_path, monkeypatch, jobs):
    """With a rule that reads contracts on (CTG114, a default rule), a result depends on
    every file's text: a warm run is answered from the cache only when each file's status is
    the one noted and the run lints the same files as the noted run. A changed contract, a
    file gone or a new one makes it a full run, whose findings are a run's without the
    cache."""
    for name, text in CONTRACT_CALLERS.items():
        write(tmp_path, name, text)
    _settled(monkeypatch)
    options = RunOptions(jobs=jobs, cache_dir=str(tmp_path / "cache"))
    default = Config(settings=Settings())
    package = str(tmp_path / "pkg")

    def uncached():
        return run([package], default, RunOptions(jobs=1)).findings

    first = run([package], default, options)
    assert {os.path.basename(f.path) for f in first.findings} == {"caller.py", "ext.py"}
    read = _read_counted(monkeypatch)  # in this process: two jobs read in the workers
    import concurrent.futures

    real_pool, pools = concurrent.futures.ProcessPoolExecutor, []
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor",
                        lambda *a, **k: pools.append(a) or real_pool(*a, **k))
    assert run([package], default, options).findings == first.findings
    assert read == [] and pools == []
    write(tmp_path, "pkg/kernels.py", "def kernel(packed):\n    return packed * 2\n")
    changed = run([package], default, options).findings
    assert changed == uncached() and {os.path.basename(f.path) for f in changed} == {"ext.py"}
    if jobs == 1:  # the run read every file
        assert set(read) == {os.path.basename(name) for name in CONTRACT_CALLERS}
    else:
        assert len(pools) == 1
    write(tmp_path, "pkg/kernels.py", CONTRACT_CALLERS["pkg/kernels.py"])
    assert run([package], default, options).findings == first.findings
    (tmp_path / "pkg" / "wrap.py").unlink()
    gone = run([package], default, options).findings
    assert gone == uncached() and "caller.py" not in {os.path.basename(f.path) for f in gone}
    write(tmp_path, "pkg/wrap.py", CONTRACT_CALLERS["pkg/wrap.py"])
    write(tmp_path, "pkg/more.py", "from pkg.kernels import kernel\n\n\n"
                                   "def use(x):\n    return kernel(x[:, ::2])\n")
    more = run([package], default, options).findings
    assert more == uncached() and len(more) == 3
