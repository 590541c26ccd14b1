"""The pre-commit hooks: the manifest is valid, and both hooks really run, offline.

`pre-commit try-repo` installs the hook repository into a fresh virtualenv with pip. To test
this working tree (not the last commit), the package files are copied into a throwaway git
repository; pip builds it without build isolation (the virtualenv's own setuptools builds the
package) and installs its one dependency, pathspec, from the machine's configured index.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clitools import BAD, CLEAN, FIXED, ROOT, environment, write

pytestmark = [pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
              pytest.mark.xdist_group("precommit")]  # one worker builds the hook repo

PACKAGE_FILES = ("pyproject.toml", "setup.py", "LICENSE", "README.md", ".pre-commit-hooks.yaml")


def git(*args, cwd):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
                    "-c", "commit.gpgsign=false", *args], cwd=cwd, check=True,
                   capture_output=True)


def pre_commit(*args, cwd, home):
    env = environment()
    env.pop("PYTHONPATH")  # the hook must run from its own installed environment
    env.update(PRE_COMMIT_HOME=str(home), PIP_NO_BUILD_ISOLATION="0",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_manifest_is_valid(tmp_path):
    process = pre_commit("validate-manifest", str(ROOT / ".pre-commit-hooks.yaml"),
                         cwd=ROOT, home=tmp_path)
    assert process.returncode == 0, process.stdout + process.stderr


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory):
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in PACKAGE_FILES:
        shutil.copy(ROOT / name, repo / name)
    shutil.copytree(ROOT / "contiglint", repo / "contiglint",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git("init", "-q", cwd=repo)
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "hook repo", cwd=repo)
    return repo


@pytest.fixture
def project(tmp_path):
    directory = tmp_path / "project"
    directory.mkdir()
    git("init", "-q", cwd=directory)
    write(directory, "bad.py", BAD)
    write(directory, "clean.py", CLEAN)
    # BAD's rule, CTG101, is a preview rule: the project opts in, as a user would
    write(directory, "pyproject.toml", '[tool.contiglint]\nextend-select = ["CTG101"]\n')
    git("add", ".", cwd=directory)
    return directory


def test_check_hook_fails_on_findings_and_passes_clean_files(hook_repo, project, tmp_path):
    home = tmp_path / "home"
    failing = pre_commit("try-repo", str(hook_repo), "contiglint", "--files", "bad.py",
                         cwd=project, home=home)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "bad.py:4:" in failing.stdout and "CTG101" in failing.stdout
    passing = pre_commit("try-repo", str(hook_repo), "contiglint", "--files", "clean.py",
                         cwd=project, home=home)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert (project / "bad.py").read_text() == BAD


def test_fix_hook_rewrites_the_file(hook_repo, project, tmp_path):
    process = pre_commit("try-repo", str(hook_repo), "contiglint-fix", "--files", "bad.py",
                         cwd=project, home=tmp_path / "home")
    # pre-commit fails a hook that modified files, so the user can review the fix
    assert process.returncode == 1, process.stdout + process.stderr
    assert "files were modified by this hook" in process.stdout
    assert (project / "bad.py").read_text() == FIXED


def test_hooks_run_in_parallel_and_the_readme_names_the_release_tag():
    """pre-commit may split the files across processes (`require_serial: false`); the README's
    snippet pins `rev: v<version>`, the tag scheme of the releases (one tag per version)."""
    manifest = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert manifest.count("require_serial: false") == manifest.count("- id:") == 2
    from contiglint import __version__

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"rev: v{__version__}" in readme
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'version = "{__version__}"' in pyproject


def test_readme_local_hook_runs_as_written(project, tmp_path):
    """The README's `.pre-commit-config.yaml` (a `repo: local` hook running the contiglint on
    the PATH), copied verbatim into a project: pre-commit fails the commit on a finding and
    passes a clean file."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## pre-commit\n"):]
    snippet = re.search(r"^```yaml\n(.*?)^```", section, re.S | re.M).group(1)
    scripts = Path(sys.executable).parent
    if not (scripts / "contiglint").exists():
        pytest.skip(f"no console script in {scripts}: contiglint is not installed there")
    write(project, ".pre-commit-config.yaml", snippet)
    git("add", ".", cwd=project)
    env = environment()
    env.update(PRE_COMMIT_HOME=str(tmp_path / "home"),
               PATH=os.pathsep.join([str(scripts), env.get("PATH", "")]))

    def run(name):
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--files", name],
                              cwd=project, env=env, capture_output=True, text=True, timeout=300)

    failing = run("bad.py")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "bad.py:4:" in failing.stdout and "CTG101" in failing.stdout
    passing = run("clean.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "contiglint" in passing.stdout and "Passed" in passing.stdout
