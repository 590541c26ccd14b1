"""Runs fixture programs in a small pool of worker processes and collects their `FileRun`s.

Each worker (`contiglint.verify.worker`) imports torch once and then serves many files, running
every case in a forked child with a per-case timeout. This side keeps a file-level deadline
too, for the one thing the worker cannot guard: a fixture whose import hangs or kills the
worker. Then the worker is replaced and that file is reported as not run.
"""
from __future__ import annotations

import os
import pickle
import re
import select
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Iterable, Optional

from contiglint.verify.records import FileRun

_HEADER = struct.Struct("!Q")
_CASE = re.compile(r"^def case_", re.M)
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


class WorkerLost(Exception):
    pass


class Worker:
    def __init__(self, device: str, case_timeout: float) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
        env.setdefault("OMP_NUM_THREADS", "1")
        env.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "contiglint.verify.worker", "--device", device,
             "--case-timeout", str(case_timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env)

    def run(self, path: str, timeout: float) -> FileRun:
        self.process.stdin.write(path.encode() + b"\n")
        self.process.stdin.flush()
        header = self._read(_HEADER.size, timeout)
        return pickle.loads(self._read(_HEADER.unpack(header)[0], timeout))

    def _read(self, size: int, timeout: float) -> bytes:
        stream, chunks, got = self.process.stdout, [], 0
        while got < size:
            if not select.select([stream], [], [], timeout)[0]:
                raise WorkerLost(f"no answer within {timeout:g} s")
            chunk = os.read(stream.fileno(), size - got)
            if not chunk:
                raise WorkerLost(f"the worker exited ({self.process.poll()}): {self.tail()}")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def tail(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()[-800:].decode(errors="replace").strip()

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self.stderr.close()


def file_timeout(path: str, case_timeout: float) -> float:
    """Every case may use its whole timeout, plus the import of torch and of the file."""
    try:
        cases = len(_CASE.findall(Path(path).read_text(encoding="utf-8")))
    except OSError:
        cases = 1
    return case_timeout * (cases + 1) + 60.0


def run_programs(paths: Iterable[str], device: str = "auto", jobs: int = 2,
                 case_timeout: float = 60.0) -> dict[str, FileRun]:
    """Run every program (fixtures and goldens alike); results keyed by path, input order."""
    queue = list(dict.fromkeys(str(p) for p in paths))
    results: dict[str, FileRun] = {}
    lock = threading.Lock()

    def take() -> Optional[str]:
        with lock:
            return queue.pop(0) if queue else None

    def serve() -> None:
        worker: Optional[Worker] = None
        try:
            while (path := take()) is not None:
                worker = worker or Worker(device, case_timeout)
                try:
                    run = worker.run(path, file_timeout(path, case_timeout))
                except (WorkerLost, OSError, EOFError, pickle.UnpicklingError) as error:
                    run = FileRun(path, "", error=f"not run: {error}")
                    worker.process.kill()
                    worker.close()
                    worker = None
                with lock:
                    results[path] = run
        finally:
            if worker is not None:
                worker.close()

    threads = [threading.Thread(target=serve, daemon=True)
               for _ in range(max(1, min(jobs, len(queue))))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    order = list(dict.fromkeys(str(p) for p in paths))
    return {path: results[path] for path in order if path in results}
