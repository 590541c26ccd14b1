"""The distributions: the sdist holds what the tests need, the wheel the license and
`contiglint verify`'s default fixture set, and `contiglint verify` works from an installed wheel.

The sdist is built from a copy of this working tree and the wheel from the unpacked sdist, as
pip builds a package from PyPI, with setuptools' PEP 517 hooks in this environment (no build
isolation, no network: the `test` extra brings a setuptools new enough for pyproject.toml).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.clitools import ROOT

pytestmark = pytest.mark.xdist_group("packaging")  # one worker builds the distributions
NAME = "contiglint-0.2.0"
# Not part of the source: environments, caches, build output, the benchmarks' downloaded corpus.
NOT_SOURCE = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc",
              ".contiglint_cache", ".pytest_cache", ".hypothesis", "corpus")
SOURCE_DIRS = ("tests", "fixtures", "examples", "benchmarks", "docs")


def _hook(hook: str, source: Path, out: Path) -> tuple[Path, str]:
    """Run setuptools' PEP 517 `hook` in `source`; the built file and the build's output."""
    process = subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta; "
         f"print(build_meta.{hook}(sys.argv[1]))", str(out)],
        cwd=source, capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stdout + process.stderr
    return out / process.stdout.splitlines()[-1], process.stdout + process.stderr


def _source_files(root: Path, top: str) -> set[str]:
    skip = shutil.ignore_patterns(*NOT_SOURCE)
    found = set()
    for directory, subdirs, names in os.walk(root / top):
        subdirs[:] = sorted(set(subdirs) - skip(directory, subdirs))
        found.update(str(Path(directory, name).relative_to(root))
                     for name in set(names) - skip(directory, names))
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("dists")
    shutil.copytree(ROOT, work / "src", ignore=shutil.ignore_patterns(*NOT_SOURCE))
    sdist, sdist_log = _hook("build_sdist", work / "src", work / "dist")
    with tarfile.open(sdist) as archive:
        archive.extractall(work / "unpacked")
    wheel, wheel_log = _hook("build_wheel", work / "unpacked" / NAME, work / "dist")
    return {"sdist": sdist, "wheel": wheel, "log": sdist_log + wheel_log, "work": work}


def test_sdist_holds_the_tests_and_everything_they_read(built):
    with tarfile.open(built["sdist"]) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    needed = {"LICENSE", "README.md", "pyproject.toml", "setup.py", ".pre-commit-hooks.yaml"}
    for top in SOURCE_DIRS:
        needed |= _source_files(ROOT, top)
    assert sorted(needed - members) == []
    assert not any(part in members for part in ("benchmarks/corpus", ".ci/run"))


def test_wheel_ships_the_license_and_the_default_fixture_set(built):
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read(f"{NAME}.dist-info/METADATA").decode()
    assert f"{NAME}.dist-info/licenses/LICENSE" in names
    assert "License-Expression: MIT" in metadata.splitlines()
    assert "deprecat" not in built["log"].lower(), built["log"]  # the license table form
    packaged = {name.removeprefix("contiglint/verify/") for name in names
                if name.startswith("contiglint/verify/fixtures/")}
    assert packaged == {path for path in _source_files(ROOT, "fixtures")
                        if path.endswith(".py")}


def test_verify_runs_the_packaged_fixtures_from_an_installed_wheel(built, tmp_path):
    """`contiglint verify` with no path, from a directory without fixtures/, where the wheel
    (not this checkout) is installed. Only the CTG104 fixtures stay installed, to keep the run
    short: the default set is whatever the installed package holds."""
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-compile", "--target", str(site), str(built["wheel"])],
                   check=True, capture_output=True, timeout=300)
    packaged = site / "contiglint" / "verify" / "fixtures"
    for directory in packaged.iterdir() if packaged.is_dir() else ():
        if directory.name != "CTG104":
            shutil.rmtree(directory)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    where = "import contiglint; print(contiglint.__file__)"
    imported = subprocess.run([sys.executable, "-c", where], cwd=elsewhere, env=env,
                              capture_output=True, text=True, timeout=60)
    assert Path(imported.stdout.strip()).parent == site / "contiglint"
    done = subprocess.run([str(site / "bin" / "contiglint"), "verify", "-j", "1"], cwd=elsewhere,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    confirmed = re.search(r"^CTG104\s+(\d+)", done.stdout, re.M)  # the fixtures ran
    assert confirmed and int(confirmed.group(1)) > 0, done.stdout
    assert "no disagreement between the model and torch" in done.stdout
    assert list(elsewhere.iterdir()) == []
