"""A remembered walk (`discover(memo=...)`, the cache's `WalkIndex`): taken while every
directory listing, .gitignore, `.git` and `__init__.py` it read says the same, walked again
as soon as one does not, on real temporary trees."""
from __future__ import annotations

import json
import os

import pytest

from contiglint import files
from contiglint.cache import Cache, WalkIndex
from contiglint.config import Config
from contiglint.discovery import discover
from contiglint.runner import RunOptions, run
from contiglint.settings import Settings


class Memo:
    """`discovery.WalkMemo` in memory."""

    def __init__(self) -> None:
        self.walks: dict[str, dict] = {}

    def recall(self, key):
        return self.walks.get(key)

    def remember(self, key, walk):
        self.walks[key] = json.loads(json.dumps(walk))  # what a cache file gives back


def touch(root, *names, text="x = 1\n"):
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def settled(monkeypatch):
    """What the test writes counts as settled (`files.SETTLED_NS`)."""
    monkeypatch.setattr(files, "SETTLED_NS", 0)


@pytest.fixture
def listings(monkeypatch):
    """The directories the walks list, in order."""
    listed, real = [], os.scandir
    monkeypatch.setattr(files.os, "scandir", lambda path: listed.append(path) or real(path))
    return listed


def tree(tmp_path):
    (tmp_path / ".git").mkdir()  # the repository's root: its .gitignore applies
    touch(tmp_path, "src/pkg/__init__.py", "src/pkg/a.py", "src/pkg/sub/b.py", "src/c.py",
          "src/build/gen.py", "src/skipped.py")
    touch(tmp_path, ".gitignore", text="build/\nskipped.py\n")
    return str(tmp_path / "src")


def test_a_remembered_walk_lists_no_directory(tmp_path, settled, listings):
    src, memo = tree(tmp_path), Memo()
    first, errors = discover([src], memo=memo)
    assert errors == [] and [os.path.relpath(p, src) for p in first] == [
        "c.py", "pkg/__init__.py", "pkg/a.py", "pkg/sub/b.py"]
    assert len(memo.walks) == 1 and len(listings) == 3
    # the patterns were read by this pathspec: another one is another walk
    import pathspec

    [walk] = memo.walks.values()
    assert ["file", pathspec.__file__] in [entry[:2] for entry in walk["inputs"]]
    listings.clear()
    assert discover([src], memo=memo) == (first, [])
    assert listings == []


def change_and_compare(src, memo, listings, change):
    discover([src], memo=memo)
    change()
    listings.clear()
    found = discover([src], memo=memo)
    assert listings, "the walk was taken from the memo after the change"
    assert found == discover([src])  # what a walk without a memo finds
    return found[0]


@pytest.mark.parametrize("change, seen", [
    (lambda root: touch(root, "src/pkg/sub/new.py"), "pkg/sub/new.py"),
    (lambda root: os.remove(root / "src/pkg/a.py"), "-pkg/a.py"),
    (lambda root: os.rename(root / "src/c.py", root / "src/d.py"), "d.py"),
    (lambda root: touch(root, "src/pkg/deeper/e.py"), "pkg/deeper/e.py"),
    # a .gitignore added in a walked directory
    (lambda root: touch(root, "src/pkg/.gitignore", text="a.py\n"), "-pkg/a.py"),
    # a package inside a .gitignored directory is walked after all
    (lambda root: touch(root, "src/build/__init__.py"), "build/gen.py"),
])
def test_a_change_to_a_listing_is_seen(tmp_path, settled, listings, change, seen):
    src, memo = tree(tmp_path), Memo()
    found = change_and_compare(src, memo, listings, lambda: change(tmp_path))
    relative = [os.path.relpath(p, src) for p in found]
    assert (seen[1:] not in relative) if seen.startswith("-") else (seen in relative)


def test_a_gitignore_edited_in_place_is_seen(tmp_path, settled, listings):
    """Same size, modification time put back: its change time still differs."""
    src, memo = tree(tmp_path), Memo()
    ignore = tmp_path / ".gitignore"
    status = ignore.stat()

    def edit():
        ignore.write_text("build/\nskipped.pz\n")
        os.utime(ignore, ns=(status.st_atime_ns, status.st_mtime_ns))

    found = change_and_compare(src, memo, listings, edit)
    assert os.path.join(src, "skipped.py") in found


def test_a_repository_root_found_above_the_walk_is_seen(tmp_path, settled, listings):
    """A `.git` made in a directory above the walk, which no listing covers: the outer
    .gitignore no longer applies."""
    tree(tmp_path)
    touch(tmp_path, ".gitignore", text="a.py\n")
    pkg, memo = str(tmp_path / "src" / "pkg"), Memo()
    assert os.path.join(pkg, "a.py") not in discover([pkg], memo=memo)[0]
    listings.clear()
    (tmp_path / "src" / ".git").mkdir()
    found = discover([pkg], memo=memo)
    assert listings and found == discover([pkg])
    assert os.path.join(pkg, "a.py") in found[0]


def test_a_named_path_that_becomes_a_directory_is_seen(tmp_path, settled, listings):
    """The named path lies in no walked directory: only its own status tells."""
    src, memo = tree(tmp_path), Memo()
    named = str(tmp_path / "later")
    touch(tmp_path, "later")
    assert named in discover([named, src], memo=memo)[0]
    os.remove(named)
    touch(tmp_path, "later/f.py")
    listings.clear()
    found = discover([named, src], memo=memo)
    assert listings and found == discover([named, src])
    assert os.path.join(named, "f.py") in found[0]


def test_other_arguments_are_other_walks(tmp_path, settled, monkeypatch):
    src, memo = tree(tmp_path), Memo()
    every = discover([src], memo=memo)[0]
    assert discover([src], memo=memo, extend_exclude=["pkg"])[0] == [
        os.path.join(src, "c.py")]
    assert discover([src], memo=memo, respect_gitignore=False)[0] == sorted(
        every + [os.path.join(src, "build", "gen.py"), os.path.join(src, "skipped.py")],
        key=lambda p: p.split(os.sep))
    monkeypatch.chdir(src)
    assert discover(["."], memo=memo)[0] == ["c.py", "pkg/__init__.py", "pkg/a.py",
                                             "pkg/sub/b.py"]
    assert len(memo.walks) == 4


def test_no_walk_is_remembered_from_unsettled_listings(tmp_path, listings):
    """A directory changed a moment ago (in the test: all of them) may change again within
    the same tick of the file system's clock, unseen: its listing is not trusted."""
    src, memo = tree(tmp_path), Memo()
    assert discover([src], memo=memo)[0] == discover([src])[0]
    assert memo.walks == {}


def test_a_walk_through_a_symlink_or_with_an_error_is_not_remembered(tmp_path, settled):
    src, memo = tree(tmp_path), Memo()
    touch(tmp_path, "elsewhere/linked.py")
    os.symlink(tmp_path / "elsewhere", tmp_path / "src" / "linked")
    assert os.path.join(src, "linked", "linked.py") in discover([src], memo=memo)[0]
    os.remove(tmp_path / "src" / "linked")
    os.symlink(tmp_path / "gone.py", tmp_path / "src" / "broken.py")
    found, errors = discover([src], memo=memo)
    assert [os.path.basename(e.path) for e in errors] == ["broken.py"]
    assert memo.walks == {}


@pytest.mark.parametrize("corrupt", [
    lambda walk: walk.update(inputs="nonsense"),
    lambda walk: walk.update(inputs=[["what", "/", 1]]),
    lambda walk: walk.update(files=[1, 2]),
    lambda walk: walk.pop("files"),
    lambda walk: walk["inputs"].append(["dir", "/nowhere/at/all", [1, 2, 3, 4]]),
])
def test_a_corrupt_remembered_walk_is_walked_again(tmp_path, settled, listings, corrupt):
    src, memo = tree(tmp_path), Memo()
    first = discover([src], memo=memo)
    [walk] = memo.walks.values()
    corrupt(walk)
    listings.clear()
    assert discover([src], memo=memo) == first and listings


def test_the_cache_keeps_the_latest_walks(tmp_path, settled):
    cache = Cache(str(tmp_path / "cache"))
    for number in range(WalkIndex.KEPT + 2):
        touch(tmp_path, f"t{number}/m.py")
        index = cache.walk_index()
        discover([str(tmp_path / f"t{number}")], memo=index)
        index.write()
    kept = cache.walk_index().known
    assert len(kept) == WalkIndex.KEPT
    assert [walk["files"] for walk in kept.values()][-1] == [
        str(tmp_path / f"t{WalkIndex.KEPT + 1}" / "m.py")]
    [path] = (tmp_path / "cache").rglob("walks.json")
    path.write_bytes(b"\x00 not json")
    assert cache.walk_index().known == {}


def test_a_cached_run_walks_the_tree_once_and_sees_a_new_file(tmp_path, settled, listings):
    src = tree(tmp_path)
    options = RunOptions(jobs=1, cache_dir=str(tmp_path / "cache"))
    first = run([src], Config(), options)
    assert len(first.outcomes) == 4 and listings
    listings.clear()
    assert [o.path for o in run([src], Config(), options).outcomes] == [
        o.path for o in first.outcomes]
    assert listings == []
    touch(tmp_path, "src/pkg/view.py", text="import torch\n\n\ndef f(x):\n"
          "    return x.transpose(0, 1).view(-1)\n")
    views = Config(settings=Settings(extend_select=("CTG101",)))
    again = run([src], views, options)
    assert [f.code for f in again.findings] == ["CTG101"]
    assert again.findings == run([src], views, RunOptions(jobs=1)).findings
