"""watch(children=True): processes started inside the block are watched and their reports
merged into the parent's (spawned interpreters through child_site/sitecustomize.py, forks
through the inherited watcher); the environment is restored afterwards."""
from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")

import contiglint.runtime as runtime  # noqa: E402
from contiglint.runtime.children import ENV, SITE_DIR  # noqa: E402

CHILD_MODULE = textwrap.dedent("""\
    import torch


    def copy_transposed(rows):
        x = torch.randn(rows, 8).t()
        return x.reshape(-1).sum().item()  # child hazard
""")


@pytest.fixture
def child_module(tmp_path, monkeypatch):
    (tmp_path / "child_work.py").write_text(CHILD_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p))
    import child_work
    yield child_work, tmp_path / "child_work.py"
    sys.modules.pop("child_work", None)


def _entries_at(report, path):
    return [e for e in report.entries if e.file == str(path)]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_child_process_hazards_are_merged(child_module, method):
    module, path = child_module
    context = multiprocessing.get_context(method)
    with runtime.watch(children=True) as report:
        workers = [context.Process(target=module.copy_transposed, args=(4,)) for _ in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert [w.exitcode for w in workers] == [0, 0]
    (entry,) = _entries_at(report, path)
    assert (entry.code, entry.count, entry.bytes_copied) == ("CTG201", 2, 2 * 32 * 4)
    assert "child hazard" in path.read_text().splitlines()[entry.line - 1]


def test_parent_entries_are_not_counted_again_by_forked_children(child_module):
    module, path = child_module
    with runtime.watch(children=True) as report:
        module.copy_transposed(4)                       # the parent's own occurrence
        worker = multiprocessing.get_context("fork").Process(target=sum, args=([1],))
        worker.start()
        worker.join()
    (entry,) = _entries_at(report, path)
    assert entry.count == 1


def test_without_children_nothing_from_children(child_module):
    module, path = child_module
    with runtime.watch() as report:
        worker = multiprocessing.get_context("fork").Process(target=module.copy_transposed,
                                                             args=(4,))
        worker.start()
        worker.join()
    assert _entries_at(report, path) == []


def test_environment_restored_and_children_without_torch_do_not_import_it():
    before = os.environ.get("PYTHONPATH")
    with runtime.watch(children=True):
        assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == SITE_DIR
        done = subprocess.run([sys.executable, "-c",
                               "import sys; print('torch' in sys.modules)"],
                              capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
    assert ENV not in os.environ and os.environ.get("PYTHONPATH") == before


def test_shadowed_sitecustomize_still_runs(tmp_path):
    other = tmp_path / "site"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import os\nos.environ['OTHER_SITE'] = 'ran'\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SITE_DIR, str(other)]), ENV: ""}
    done = subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('OTHER_SITE'))"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ran", done.stderr
