"""What a write keeps and what it refuses, through the real command: `--fix` keeps a file's
owner, group and mode (as root, on a file of another user: a Docker bind mount), writes in
place where the replacement could not keep them, refuses a file the user made read-only, and
`-o` creates its report with the mode the umask gives.

The tests of an unprivileged user run the command as `nobody` (setpriv) when the suite runs
as root, or as the user running the suite otherwise; they skip, saying why, where neither is
possible."""
from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator, Optional

import pytest

from tests.clitools import BAD, EXAMPLE_SELECT, FIXED, contiglint, environment, write

FIX = (*EXAMPLE_SELECT, "--fix", "--no-cache")


def _status(path: Path) -> tuple[int, int, int]:
    status = os.stat(path)
    return status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)


def _other_user() -> tuple[int, int]:
    """(uid, gid) of `nobody`: a user and group other than root's."""
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no `nobody` user on this machine")
    return entry.pw_uid, entry.pw_gid


def test_fix_as_root_keeps_the_owner_group_and_mode_of_another_users_file(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user takes root")
    uid, gid = _other_user()
    path = write(tmp_path, "m.py", BAD)
    os.chown(path, uid, gid)
    os.chmod(path, 0o640)
    process = contiglint(*FIX, "m.py", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    assert path.read_text() == FIXED
    assert _status(path) == (uid, gid, 0o640)
    assert os.listdir(tmp_path) == ["m.py"]


def test_fix_as_root_writes_a_read_only_file_as_ruff_does_and_keeps_its_mode(tmp_path):
    """The system lets root write any file; ruff (an in-place write) and `sed -i` write it."""
    if os.geteuid() != 0:
        pytest.skip("the system lets only root write a 0444 file")
    path = write(tmp_path, "m.py", BAD)
    os.chmod(path, 0o444)
    process = contiglint(*FIX, "m.py", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    assert path.read_text() == FIXED and _status(path)[2] == 0o444


class Unprivileged:
    """Runs the command as a user without root's powers, in a directory of its own."""

    def __init__(self, prefix: list[str], uid: int, gid: int) -> None:
        self.prefix, self.uid, self.gid = prefix, uid, gid
        self.directory = Path(tempfile.mkdtemp(prefix="contiglint-user-"))
        os.chmod(self.directory, 0o755)
        if prefix:
            os.chown(self.directory, uid, gid)

    def write(self, name: str, text: str, mode: int = 0o644,
              owner: Optional[tuple[int, int]] = None) -> Path:
        path = write(self.directory, name, text)
        if self.prefix:
            os.chown(path.parent, self.uid, self.gid)
        os.chown(path, *(owner or (self.uid, self.gid)))
        os.chmod(path, mode)
        return path

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*self.prefix, sys.executable, "-m", "contiglint", *args],
                              cwd=self.directory, capture_output=True, text=True,
                              env=environment(), timeout=120)


@pytest.fixture
def unprivileged() -> Iterator[Unprivileged]:
    if os.geteuid() != 0:
        user = Unprivileged([], os.getuid(), os.getgid())
    else:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without `setpriv` to become an unprivileged user")
        uid, gid = _other_user()
        user = Unprivileged([setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups"],
                            uid, gid)
        probe = subprocess.run([*user.prefix, sys.executable, "-c", "import contiglint"],
                               cwd=user.directory, capture_output=True, text=True,
                               env=environment(), timeout=60)
        if probe.returncode != 0:
            shutil.rmtree(user.directory, ignore_errors=True)
            pytest.skip(f"`nobody` cannot run contiglint here: {probe.stderr.strip()[-200:]}")
    try:
        yield user
    finally:
        for directory, _, _ in os.walk(user.directory):
            os.chmod(directory, 0o755)
        shutil.rmtree(user.directory, ignore_errors=True)


def test_fix_refuses_a_read_only_file_and_still_fixes_the_others(unprivileged):
    locked = unprivileged.write("locked.py", BAD, mode=0o444)
    other = unprivileged.write("other.py", BAD)
    process = unprivileged.run(*FIX, ".")
    assert process.returncode == 2, process.stderr
    assert "locked.py:1:1: E902 not written: the file is read-only for this user (mode " \
        "0444)" in process.stderr
    assert locked.read_text() == BAD and _status(locked)[2] == 0o444
    assert other.read_text() == FIXED
    # the refused file's finding is still reported, where it still is
    assert process.stdout.startswith("locked.py:4:22: CTG101 ")


def test_fix_writes_in_place_a_file_whose_owner_the_user_cannot_give(unprivileged):
    """A file of root's that the user may write (0666) in the user's own directory: a new file
    would be the user's, so the fix is written into the file itself, which stays root's."""
    if not unprivileged.prefix:
        pytest.skip("making a file of another user takes root")
    theirs = unprivileged.write("theirs.py", BAD, mode=0o666, owner=(0, 0))
    process = unprivileged.run(*FIX, "theirs.py")
    assert process.returncode == 0, process.stderr
    assert theirs.read_text() == FIXED and _status(theirs) == (0, 0, 0o666)
    assert sorted(os.listdir(unprivileged.directory)) == ["theirs.py"]


def test_fix_writes_in_place_where_the_directory_takes_no_new_file(unprivileged):
    path = unprivileged.write("fixed/m.py", BAD)
    os.chmod(path.parent, 0o555)
    process = unprivileged.run(*FIX, "fixed/m.py")
    assert process.returncode == 0, process.stderr
    assert path.read_text() == FIXED
    assert os.listdir(path.parent) == ["m.py"]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)],
                         ids=["umask-022", "umask-077", "umask-002"])
def test_output_file_is_created_with_the_mode_the_umask_gives(tmp_path, umask, mode):
    write(tmp_path, "bad.py", BAD)
    process = subprocess.run(
        [sys.executable, "-m", "contiglint", *EXAMPLE_SELECT, "-o", "report.txt", "bad.py"],
        cwd=tmp_path, capture_output=True, text=True, env=environment(), timeout=120,
        preexec_fn=lambda: os.umask(umask))
    assert process.returncode == 1, process.stderr
    assert _status(tmp_path / "report.txt")[2] == mode
    assert (tmp_path / "report.txt").read_text().startswith("bad.py:4:22: CTG101 ")


def test_output_file_that_exists_keeps_its_mode(tmp_path):
    write(tmp_path, "bad.py", BAD)
    report = write(tmp_path, "report.txt", "old\n")
    os.chmod(report, 0o640)
    process = contiglint("-o", "report.txt", "bad.py", cwd=tmp_path)
    assert process.returncode == 1, process.stderr
    assert _status(report)[2] == 0o640 and report.read_text().startswith("bad.py:4:22: ")
