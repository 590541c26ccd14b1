"""What the tracer records: one `Observation` per call, with `Argument` layouts as plain data.

NamedTuples, not frozen dataclasses: one is built per observed call, and tuples are several
times cheaper to construct. Kept apart from the tracer so that consumers (the fixture verifier,
`contiglint run`) can import and build these without installing any hook.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from contiglint.verify.frames import Site
from contiglint.verify.layout_summary import TensorLayout


class Argument(NamedTuple):
    """A tensor passed to an op. `name`: "self" (the receiver), a position ("0", "1[2]" for
    the third tensor of a list) or a keyword. `origin`: the user line where this very tensor
    object was made non-contiguous, when it was made under this tracer."""

    name: str
    layout: TensorLayout
    origin: Optional[Site] = None


class Observation(NamedTuple):
    """One call of one op from one user line.

    `kind`: "op" (seen by the torch function mode), "entry" (a patched entry point) or
    "module" (an nn.Module returned; `op` is "<ClassName>.forward", `defined_in` the file of
    its class, so consumers can tell the user's modules from torch's). `results` holds the
    layouts of tensor results (one for a tensor, several for a tuple or list). `error` and
    `error_message` are set when the call raised; the exception itself was re-raised.
    """

    site: Site
    op: str
    kind: str
    direct: bool
    arguments: tuple[Argument, ...]
    results: tuple[TensorLayout, ...]
    error: Optional[str] = None
    error_message: Optional[str] = None
    defined_in: Optional[str] = None  # "module" kind: file defining the module's class
    # the user frames that called `site`'s function, innermost first (Tracer(callers=True))
    called_from: tuple[Site, ...] = ()

    @property
    def file(self) -> str:
        return self.site.file

    @property
    def line(self) -> int:
        return self.site.line

    @property
    def receiver(self) -> Optional[Argument]:
        """The first tensor argument (for tensor methods, the tensor the method was called on)."""
        return self.arguments[0] if self.arguments else None

    @property
    def result(self) -> Optional[TensorLayout]:
        return self.results[0] if self.results else None

    def as_json(self) -> dict:
        return {
            "file": self.file, "line": self.line, "function": self.site.function,
            "op": self.op, "kind": self.kind, "direct": self.direct,
            "arguments": [{"name": a.name, **a.layout.as_json(),
                           "origin": str(a.origin) if a.origin else None}
                          for a in self.arguments],
            "results": [r.as_json() for r in self.results],
            "error": self.error, "error_message": self.error_message,
            "defined_in": self.defined_in,
        }
