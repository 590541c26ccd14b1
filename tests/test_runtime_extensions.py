"""The runtime watch at compiled extension boundaries, with a real C++ extension.

A function of a module built by `torch.utils.cpp_extension.load_inline`, or of a compiled
module shipped inside the user's project, gets no strides: it reads `data_ptr()` as a dense
row-major block (the scripts check that the values it computes change with the layout). The
watcher wraps such functions and reports a non-contiguous tensor argument (CTG114, "unknown
contract") at the user line of the call. The extension is built once into pytest's cache
(about half a minute; later runs find it built); the tests are skipped without a C++ compiler
or ninja.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.clitools import environment

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.xdist_group("extension")  # one worker builds it once

SOURCE = """
#include <torch/extension.h>
double weighted_sum(torch::Tensor x) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat, "float32 only");
  const float* p = x.data_ptr<float>();
  double s = 0;
  for (int64_t i = 0; i < x.numel(); ++i) s += p[i] * (i + 1);
  return s;
}
"""
NAME = "ctg_weighted_sum"
LOAD = f"""\
import os
import torch
from torch.utils.cpp_extension import load_inline

ext = load_inline({NAME!r}, cpp_sources={SOURCE!r}, functions=["weighted_sum"],
                  build_directory=os.environ["CTG_EXT_DIR"])
"""


@pytest.fixture(scope="module")
def build_dir(request, tmp_path_factory) -> Path:
    from torch.utils import cpp_extension

    if shutil.which(os.environ.get("CXX", "c++")) is None:
        pytest.skip("no C++ compiler")
    try:
        cpp_extension.verify_ninja_availability()
    except RuntimeError:
        pytest.skip("no ninja")
    cache = getattr(request.config, "cache", None)  # None under `-p no:cacheprovider`
    folder = Path(cache.mkdir("contiglint-extension")) if cache is not None else \
        tmp_path_factory.mktemp("contiglint-extension")
    env = {**environment(), "CTG_EXT_DIR": str(folder)}
    subprocess.run([sys.executable, "-c", LOAD], env=env, check=True, timeout=600,
                   capture_output=True)
    return folder


def _run(script: Path, build_dir: Path, cwd: Path) -> list[dict]:
    report = cwd / "report.json"
    env = {**environment(), "CTG_EXT_DIR": str(build_dir)}
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(cwd)])
    subprocess.run([sys.executable, "-m", "contiglint.runtime", "--format", "json", "--output",
                    str(report), str(script)], cwd=cwd, env=env, check=True, timeout=300)
    return json.loads(report.read_text())["entries"]


def test_load_inline_functions_are_watched(build_dir, tmp_path):
    script = tmp_path / "script.py"
    script.write_text(LOAD + textwrap.dedent("""\


        def reduce(x):
            return ext.weighted_sum(x)


        h = torch.arange(6.0).reshape(2, 3)
        wrong = reduce(h.t())
        assert wrong != reduce(h.t().contiguous())  # the kernel read memory order
        reduce(h)
    """))
    entries = _run(script, build_dir, tmp_path)
    assert [(e["code"], e["line"], e["op"]) for e in entries] == [
        ("CTG114", 10, f"ext:{NAME}.weighted_sum")]
    assert "unknown contract" in entries[0]["note"]
    assert [c["line"] for c in entries[0]["called_from"]][:1] == [14]
    assert entries[0]["made_non_contiguous_at"][0]["line"] == 14


def test_compiled_module_of_the_project_is_watched(build_dir, tmp_path):
    """A built module inside the project, imported after the watch starts (`from pkg import
    ext`), has its functions wrapped at import."""
    built = next(p for p in build_dir.iterdir() if p.name.startswith(NAME) and
                 p.suffix in (".so", ".pyd"))
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(built, package / built.name)
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(f"""\
        import torch
        from pkg import {NAME} as ext

        h = torch.arange(12.0).reshape(3, 4)
        ext.weighted_sum(h[:, 1:])
        ext.weighted_sum(h[1:])
    """))
    entries = _run(script, build_dir, tmp_path)
    assert [(e["code"], e["line"]) for e in entries] == [("CTG114", 5)]
    assert entries[0]["op"] == f"ext:pkg.{NAME}.weighted_sum"


def test_extension_wrappers_are_removed_after_the_watch(build_dir, tmp_path):
    from contiglint.runtime import watch

    sys.path.insert(0, str(build_dir))
    try:
        module = __import__(NAME)
    finally:
        sys.path.remove(str(build_dir))
    original = module.weighted_sum
    h = torch.arange(6.0).reshape(2, 3)
    with watch(files=lambda path: True) as report:
        assert module.weighted_sum is not original
        module.weighted_sum(h.t())
    assert module.weighted_sum is original
    assert [e.code for e in report.entries] == ["CTG114"]
