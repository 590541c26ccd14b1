"""Discovery, excludes, decoding and atomic writes, on real temporary files."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from contiglint.engine import SourceError
from contiglint.discovery import discover
from contiglint.files import matches, read_source, write_source


def touch(root, *names):
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")


def relative(files, root):
    return [os.path.relpath(path, root) for path in files]


def test_discovery_recurses_sorted_and_skips_default_excludes(tmp_path):
    """VCS, virtual environments and caches are skipped by name; build output is not (that is
    .gitignore's job: a package may hold a `dist/` of its own)."""
    touch(tmp_path, "b.py", "a.py", "pkg/z.py", "pkg/sub/y.py", "notes.txt", "pkg/stub.pyi",
          ".git/hooks/h.py", ".venv/lib/v.py", "venv/v.py", "build/b.py", "dist/d.py",
          "pkg/__pycache__/c.py", "node_modules/n.py", ".tox/t.py", ".eggs/e.py",
          ".contiglint_cache/c.py")
    files, errors = discover([str(tmp_path)])
    assert errors == []
    assert relative(files, tmp_path) == ["a.py", "b.py", "build/b.py", "dist/d.py",
                                         "pkg/sub/y.py", "pkg/z.py"]


def test_user_excludes_by_name_and_by_relative_path(tmp_path):
    touch(tmp_path, "keep.py", "gen_pb2.py", "tests/data/d.py", "tests/t.py", "src/x/gen_a.py")
    files, _ = discover([str(tmp_path)], extend_exclude=["*_pb2.py", "tests/data",
                                                         "src/**/gen_*.py"], root=str(tmp_path))
    assert relative(files, tmp_path) == ["keep.py", "tests/t.py"]
    files, _ = discover([str(tmp_path)], exclude=["tests"], root=str(tmp_path))
    assert "tests/t.py" not in relative(files, tmp_path)
    assert "build/b.py" not in relative(files, tmp_path)  # exclude replaces the defaults...
    touch(tmp_path, "build/b.py")
    files, _ = discover([str(tmp_path)], exclude=["tests"], root=str(tmp_path))
    assert "build/b.py" in relative(files, tmp_path)  # ...so build/ is walked again


def test_named_files_are_always_checked_and_deduplicated(tmp_path):
    touch(tmp_path, "build/script", "a.py")
    script = str(tmp_path / "build/script")
    files, _ = discover([script, str(tmp_path / "a.py"), str(tmp_path / "." / "a.py")])
    assert files == [str(tmp_path / "a.py"), script]


def test_files_are_sorted_by_their_path_parts(tmp_path, monkeypatch):
    """`a/x.py` before `a-b/x.py` and `a.py` (as `Path.parts` compare), also for paths
    named with `./` or doubled slashes."""
    touch(tmp_path, "a/x.py", "a-b/x.py", "a.py", "a/b/c.py", "ab.py", "a/z.py")
    monkeypatch.chdir(tmp_path)
    named = ["ab.py", "./a-b/x.py", "a.py", "a//z.py", "a/b/c.py", "./a/x.py"]
    files, _ = discover(named)
    assert files == sorted(named, key=lambda path: Path(path).parts)
    assert files == ["a/b/c.py", "./a/x.py", "a//z.py", "./a-b/x.py", "a.py", "ab.py"]
    walked, _ = discover(["."])
    assert walked == ["a/b/c.py", "a/x.py", "a/z.py", "a-b/x.py", "a.py", "ab.py"]


def test_matches_uses_names_without_slash_and_paths_with_slash(tmp_path):
    assert matches("pkg/build", ["build"])
    assert not matches("pkg/build.py", ["build"])
    assert matches(str(tmp_path / "tests/data/x.py"), ["tests/data/*"], root=str(tmp_path))
    assert not matches(str(tmp_path / "other/tests/data/x.py"), ["tests/data/*"],
                       root=str(tmp_path))


def test_symlink_loop_is_reported_not_followed_forever(tmp_path):
    touch(tmp_path, "pkg/a.py")
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "again")
    os.symlink("self.py", tmp_path / "self.py")  # a file link to itself
    files, errors = discover([str(tmp_path)])
    assert relative(files, tmp_path) == ["pkg/a.py"]
    messages = {os.path.relpath(e.path, tmp_path): e.message for e in errors}
    assert "symlink loop" in messages["pkg/again"]
    assert all(e.kind == "io" for e in errors)
    assert "symlink loop" in messages["self.py"]


def test_broken_symlink_and_vanished_path_are_io_errors(tmp_path):
    os.symlink(tmp_path / "gone.py", tmp_path / "link.py")
    files, errors = discover([str(tmp_path), str(tmp_path / "vanished.py")])
    assert files == []
    assert sorted(os.path.basename(e.path) for e in errors) == ["link.py", "vanished.py"]
    assert all("No such file" in e.message for e in errors)


@pytest.mark.parametrize("raw, encoding, text", [
    (b"x = 1\r\ny = 2\r\n", "utf-8", "x = 1\r\ny = 2\r\n"),
    (b"\xef\xbb\xbfx = '\xc3\xa9'\n", "utf-8-sig", "x = '\u00e9'\n"),
    (b"# coding: latin-1\nx = '\xe9'\n", "iso-8859-1", "# coding: latin-1\nx = '\u00e9'\n"),
    (b"x = 1\ry = 2\r", "utf-8", "x = 1\ry = 2\r"),
])
def test_read_keeps_encoding_bom_and_newlines(tmp_path, raw, encoding, text):
    path = tmp_path / "m.py"
    path.write_bytes(raw)
    source = read_source(str(path))
    assert (source.text, source.encoding) == (text, encoding)
    assert write_source(source, source.text.replace("1", "3")) is None
    assert path.read_bytes() == raw.replace(b"1", b"3")


@pytest.mark.parametrize("raw, line, words", [
    (b"x = 1\ny = '\xff'\n", 2, "byte 0xff is not valid utf-8"),
    (b"# -*- coding: nonsense -*-\n", 1, "unknown encoding"),
    (b"\xef\xbb\xbf# coding: latin-1\n", 1, "encoding problem"),
])
def test_undecodable_bytes_are_io_errors(tmp_path, raw, line, words):
    path = tmp_path / "m.py"
    path.write_bytes(raw)
    error = read_source(str(path))
    assert isinstance(error, SourceError) and error.kind == "io"
    assert error.line == line and words in error.message, error.message


def test_unreadable_path_is_an_io_error(tmp_path):
    error = read_source(str(tmp_path))  # a directory cannot be read as a file
    assert isinstance(error, SourceError) and error.message.startswith("cannot read: ")


def test_write_is_atomic_keeps_permissions_and_leaves_no_temp_file(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x.view(1)\n")
    os.chmod(path, 0o751)
    source = read_source(str(path))
    assert write_source(source, "x.reshape(1)\n") is None
    assert path.read_text() == "x.reshape(1)\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert os.listdir(tmp_path) == ["m.py"]


def test_write_refuses_when_file_changed_since_read(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x.view(1)\n")
    source = read_source(str(path))
    path.write_text("x.view(2)\n")
    error = write_source(source, "x.reshape(1)\n")
    assert error is not None and "changed on disk" in error.message
    assert path.read_text() == "x.view(2)\n"


def test_write_through_symlink_keeps_the_link(tmp_path):
    target = tmp_path / "real.py"
    target.write_text("x.view(1)\n")
    link = tmp_path / "link.py"
    os.symlink(target, link)
    assert write_source(read_source(str(link)), "x.reshape(1)\n") is None
    assert link.is_symlink() and target.read_text() == "x.reshape(1)\n"


def test_write_that_cannot_be_encoded_is_refused(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"# coding: latin-1\nx = 1\n")
    error = write_source(read_source(str(path)), "# coding: latin-1\nx = '\u4e2d'\n")
    assert error is not None and "cannot be encoded" in error.message
    assert path.read_bytes() == b"# coding: latin-1\nx = 1\n"


def test_a_file_read_only_to_be_checked_is_never_written(tmp_path):
    """A check run reads without hashing the bytes (`digest=False`); such a read cannot tell
    whether the file changed since, so writing it back is refused."""
    path = tmp_path / "m.py"
    path.write_text("x.view(1)\n")
    source = read_source(str(path), digest=False)
    assert source.text == "x.view(1)\n" and source.digest == ""
    error = write_source(source, "x.reshape(1)\n")
    assert error is not None and error.kind == "internal"
    assert path.read_text() == "x.view(1)\n"
    assert write_source(read_source(str(path)), "x.reshape(1)\n") is None
    assert path.read_text() == "x.reshape(1)\n"
