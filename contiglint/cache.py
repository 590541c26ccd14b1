"""A content-addressed result cache in `.contiglint_cache/`, like ruff's.

An entry is keyed by the sha256 of contiglint's own source files (`fingerprint()`: a changed
rule is a new key even when the version number stays), the effective settings, the display path,
the file text and the digest of the project's contracts the file was linted with (another file's
changed contract is a miss too), so any change to one of them is a miss, never a stale hit. A
result linted with contracts is also kept under a key without their digest, with every answer
its lint got from them (`ANSWERS`, `load_answered`): after another file's contract changed, it
stands where the new contracts give those answers (project_pass.py, `check_file`), so only the
files that read a changed contract are linted again. Contract summaries are cached by the same
fingerprint and the file's content. Entries are written atomically (temp file + `os.replace`),
so concurrent runs can share the directory; an entry that cannot be read or decoded is treated
as a miss. The cache never makes a run fail.

A warm run need not read a file to know its text (`StatIndex`): the index holds, for each file
a run read, its status then (size, modification and change times, inode, device) and the
digest of its text. While the status is the same, the text is taken to be (git's index and
ruff's cache trust a file's status the same way). Any write to a file sets its change time to
the time of the write, which no tool can set back, so a file is noted only once its change
time is `SETTLED_NS` old (`files.stat_signature`): a write that came after the status was
taken, even within one tick of a coarse file-system clock, gives another change time. The
walks of the tree are kept the same way (`WalkIndex`, `discovery.discover`): a warm run does not
list the directories again, or read the .gitignore files, while their status is the same.
"""
from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Optional

from contiglint import __version__
from contiglint.engine import LintResult, SourceError
from contiglint.files import atomic_write_bytes
from contiglint.findings import Edit, Finding, Fix, Position, Related, Rewrite
from contiglint.layout.model.witness import Witness
from contiglint.settings import Settings
from contiglint.source import text_digest

CACHE_DIR_NAME = ".contiglint_cache"
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# created by contiglint\n"


@lru_cache(maxsize=None)
def fingerprint() -> str:
    """sha256 of the version and every `*.py` of the installed contiglint package (names and
    bytes): what the linter's results depend on besides the settings and the input. About
    a millisecond per hundred files, once per process."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(b"\0" + path.relative_to(package).as_posix().encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<unreadable>")
    return digest.hexdigest()


@lru_cache(maxsize=16)
def _settings_hash(settings_key: str):
    """The start of every result key under these settings (`Cache.digest_key`), hashed once:
    a warm run asks for a key per file."""
    key = hashlib.sha256()
    for part in (fingerprint(), settings_key):
        key.update(part.encode("utf-8", "surrogatepass"))
        key.update(b"\0")
    return key


# the contracts' place in the key of a result kept with the answers its lint got from them:
# never a digest, so never another entry's key
ANSWERS = "answers"


class Cache:
    def __init__(self, directory: str) -> None:
        self.directory = directory

    @staticmethod
    def key(text: str, path: str, settings: Settings, contracts: str = "") -> str:
        """`contracts`: the digest of the project's contracts the file was linted with."""
        return Cache.digest_key(text_digest(text), path, settings, contracts)

    @staticmethod
    def digest_key(digest: str, path: str, settings: Settings, contracts: str = "") -> str:
        """`key` of the text whose `text_digest` is `digest`."""
        key = _settings_hash(settings.cache_key).copy()
        for part in (path, digest, contracts):
            key.update(part.encode("utf-8", "surrogatepass"))
            key.update(b"\0")
        return key.hexdigest()

    def _entry(self, key: str) -> str:
        return os.path.join(self.directory, f"{__version__}-{fingerprint()[:12]}", key[:2],
                            key + ".json")

    def load(self, key: str, text: Optional[str]) -> Optional[LintResult]:
        """The result stored under `key` for `text`; None when there is none, and when a
        finding's fix is made from the text and `text` is None (not read)."""
        found = self.load_answered(key, text)
        return found[0] if found is not None else None

    def load_answered(self, key: str, text: Optional[str]
                      ) -> Optional[tuple[LintResult, dict]]:
        """`load`, with the contract answers stored with the result (`store`; {} if none)."""
        try:
            with open(self._entry(key), "rb") as handle:
                entry = json.loads(handle.read())
            result = LintResult([finding_from_json(f, text) for f in entry["findings"]],
                                [SourceError(**e) for e in entry["errors"]])
            asked = {(what, name): answer for what, name, answer in entry.get("asked", ())}
            if not all(isinstance(part, str) for item in asked.items() for part in
                       (*item[0], item[1])):
                raise ValueError("answers")
            return result, asked
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # missing or corrupt: lint again

    def store(self, key: str, result: LintResult, asked: Optional[dict] = None) -> None:
        """`asked`: every answer the lint got from the contracts, by (what, name)
        (`ProjectContracts.asked`), kept with the result (`load_answered`)."""
        if any(error.kind != "syntax" for error in result.errors):
            return  # internal and I/O problems may go away; don't remember them
        entry = {"findings": [f.as_json(lazy=True) for f in result.findings],
                 "errors": [vars(error) for error in result.errors]}
        if asked is not None:
            entry["asked"] = [[what, name, answer] for (what, name), answer in asked.items()]
        path = self._entry(key)
        try:
            self._prepare(os.path.dirname(path))
            atomic_write_bytes(path, json.dumps(entry).encode("utf-8"))
        except OSError:
            pass  # a read-only tree or a full disk costs speed, not correctness

    # contract summaries (layout/contracts/), keyed by content: a warm run does not parse
    # the project again to know what its functions require
    @staticmethod
    def summary_key(text: str, path: str, module: str) -> str:
        digest = hashlib.sha256()
        for part in (fingerprint(), "contracts", path, module, text):
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\0")
        return "s" + digest.hexdigest()

    def load_summary(self, key: str) -> Optional[dict]:
        try:
            with open(self._entry(key), "rb") as handle:
                return json.loads(handle.read())
        except (OSError, ValueError):
            return None

    def store_summary(self, key: str, data: dict) -> None:
        path = self._entry(key)
        try:
            self._prepare(os.path.dirname(path))
            atomic_write_bytes(path, json.dumps(data).encode("utf-8"))
        except OSError:
            pass

    def stat_index(self) -> "StatIndex":
        return StatIndex(os.path.join(self.directory, f"{__version__}-{fingerprint()[:12]}",
                                      "files.json"), self)

    def walk_index(self) -> "WalkIndex":
        return WalkIndex(os.path.join(self.directory, f"{__version__}-{fingerprint()[:12]}",
                                      "walks.json"), self)

    def _prepare(self, directory: str) -> None:
        if os.path.isdir(directory):
            return
        os.makedirs(directory, exist_ok=True)
        for name, content in (("CACHEDIR.TAG", _TAG), (".gitignore", "*\n")):
            marker = os.path.join(self.directory, name)
            if not os.path.exists(marker):
                atomic_write_bytes(marker, content.encode())


def finding_from_json(data: dict, text: Optional[str]) -> Finding:
    """The inverse of `Finding.as_json(lazy=True)` for a finding in `text` (KeyError when
    the finding's fix is made from the text and `text` is None)."""
    fix = data["fix"]
    if fix is not None and "rewrite" in fix:  # a statement fix LibCST makes when asked
        if text is None:
            raise KeyError("text")
        fix = Fix(fix["safety"], None, fix["description"],
                  Rewrite.from_json(fix["rewrite"], text))
    elif fix is not None:
        fix = Fix(fix["safety"], tuple(
            Edit(Position(e["line"], e["column"]), Position(e["end_line"], e["end_column"]),
                 e["content"]) for e in fix["edits"]), fix["description"],
                  problem=fix.get("problem"))
    related = tuple(Related(r["line"], r["column"], r["message"]) for r in data["related"])
    witness = data.get("witness")
    return Finding(data["path"], data["line"], data["column"], data["end_line"],
                   data["end_column"], data["code"], data["message"], fix, related,
                   Witness.from_json(witness) if witness else None)


class _Table:
    """A table the cache keeps in one JSON file, under `FIELD`: read once per run (missing or
    corrupt, it is empty) and written once at its end, if the run changed it."""

    FIELD = ""

    def __init__(self, path: str, cache: Cache) -> None:
        self.path, self.cache = path, cache
        try:
            with open(path, "rb") as handle:
                known = json.loads(handle.read())[self.FIELD]
            if not isinstance(known, dict):
                raise ValueError("not a table")
        except (OSError, ValueError, KeyError, TypeError):
            known = {}
        self.known: dict = known
        self.changed = False

    def write(self) -> None:
        if not self.changed:
            return
        try:
            self.cache._prepare(os.path.dirname(self.path))
            atomic_write_bytes(self.path, json.dumps({self.FIELD: self.known}).encode("utf-8"))
        except OSError:
            pass  # a read-only tree or a full disk costs speed, not correctness


class StatIndex(_Table):
    """For each absolute path: the `stat_signature` a run saw, the `text_digest` of the text
    it read then (see the module's docstring), and the file's key in that run when its result
    was clean (no finding, no error; else ""), so that a warm run with the same settings reads
    no entry for most files. Under `PROJECTS`, the last runs that read contracts, each with
    the digest of its contracts (stat_answers.py)."""

    FIELD = "files"  # missing or corrupt: every file is read

    def lookup(self, absolute: str, signature: Optional[list[int]]) -> Optional[tuple[str, str]]:
        """The digest of the file's text and its clean key (or ""), when its status is the one
        noted with them."""
        entry = self.known.get(absolute)
        if signature is None or not isinstance(entry, list) or entry[:-2] != signature or \
                not all(isinstance(part, str) for part in entry[-2:]):
            return None
        return entry[-2], entry[-1]

    def met(self, absolute: str, signature: list[int], digest: str, key: str,
            result: LintResult) -> None:
        """The file's text (its status, the digest) and its result under `key` this run."""
        entry = signature + [digest, key if not result.findings and not result.errors else ""]
        if self.known.get(absolute) != entry:
            self.known[absolute] = entry
            self.changed = True

    PROJECTS = "<projects>"  # not an absolute path: the project runs noted, newest last
    KEPT = 8

    def project(self, run: str) -> Optional[str]:
        """The digest of the contracts of the project run noted under `run`, if any."""
        runs = self.known.get(self.PROJECTS)
        digest = runs.get(run) if isinstance(runs, dict) else None
        return digest if isinstance(digest, str) else None

    def ran_project(self, run: str, contracts: str) -> None:
        runs = self.known.get(self.PROJECTS)
        runs = dict(runs) if isinstance(runs, dict) else {}
        if runs.get(run) == contracts and list(runs)[-1] == run:
            return
        _keep_newest(runs, run, contracts, self.KEPT)
        self.known[self.PROJECTS] = runs
        self.changed = True


class WalkIndex(_Table):
    """The walks of `discovery.discover` (`discovery.WalkMemo`), by the key of their arguments: the
    last `KEPT` that runs made."""

    FIELD = "walks"  # missing or corrupt: the tree is walked
    KEPT = 8

    def recall(self, key: str) -> Optional[dict]:
        walk = self.known.get(key)
        return walk if isinstance(walk, dict) else None

    def remember(self, key: str, walk: dict) -> None:
        _keep_newest(self.known, key, walk, self.KEPT)
        self.changed = True


def _keep_newest(table: dict, key: str, value, kept: int) -> None:
    """`table[key] = value`, the newest last: beyond `kept` entries the oldest are dropped."""
    table.pop(key, None)
    table[key] = value
    for old in list(table)[:-kept]:
        del table[old]
