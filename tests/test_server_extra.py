"""`contiglint server` without its extra installed: a clear error naming the extra, exit 2
(runs whether or not pygls is installed here: the child is made to lack it)."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.clitools import environment


def test_server_without_pygls_names_the_extra(tmp_path):
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\nsys.modules['pygls'] = None\nsys.modules['lsprotocol'] = None\n")
    env = environment()
    env["PYTHONPATH"] = os.pathsep.join([str(blocker), env["PYTHONPATH"]])
    process = subprocess.run([sys.executable, "-m", "contiglint", "server"], cwd=tmp_path,
                             capture_output=True, text=True, env=env, timeout=60)
    assert process.returncode == 2
    assert "needs the `server` extra" in process.stderr
    assert "pip install 'contiglint[server]'" in process.stderr
    assert "Traceback" not in process.stderr
