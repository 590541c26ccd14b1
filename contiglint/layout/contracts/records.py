"""The records of learned contracts (see the package docstring): plain data, picklable
and JSON-able, so summaries travel between worker processes and are cached by content hash."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

SUMMARY_TOKENS = ("is_contiguous", "stride", "data_ptr", "storage", "triton", "ctypes",
                  "frombuffer", "__cuda_array_interface__", "torch.library", "cpp_extension",
                  "import", "_check")


@dataclass(frozen=True)
class Evidence:
    """Why a parameter must be contiguous: a guard, a raw read, a launch or a call."""

    path: str
    line: int
    column: int
    what: str  # "asserts `x.is_contiguous()`", "reads `x.data_ptr()`", ...


@dataclass(frozen=True)
class Requirement:
    """`kind`: "full" (contiguous), "inner" (last stride 1), or "unknown" (an extension)."""

    kind: str
    evidence: tuple[Evidence, ...]  # outermost first: the call chain down to the guard
    writes: bool = False


CHECK_PREFIX = "<check>"
SAVED_SLOT = "saved:"  # Edge slot of a tensor `forward` saves for `backward`, by position


@dataclass(frozen=True)
class Edge:
    """`param` of the function is passed on to `target` as its argument `slot` (a position
    after `shift`, or a keyword), at `line`. A target `<check>qualname` is a layout check of
    `param` (`slot`: its kind) passed to an imported function: a guard if that function is a
    check function of the project (`torch_check(p.is_contiguous(), ...)`)."""

    param: str
    target: str  # a qualified name, "torch.ops.ns.op", or "<ext>module.function"
    slot: object
    shift: int
    line: int
    column: int
    text: str


@dataclass
class FunctionContract:
    qualname: str
    params: tuple[str, ...]  # positional parameters, in order (self, ctx and cls included)
    keywords: tuple[str, ...]  # keyword-only parameters
    required: dict[str, Requirement] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    # a custom autograd `backward`: the names it unpacks `ctx.saved_tensors` into, in order
    saved: tuple[str, ...] = ()

    def param_for(self, slot: object, shift: int = 0) -> Optional[str]:
        if isinstance(slot, str) and slot.startswith(SAVED_SLOT):
            index = int(slot[len(SAVED_SLOT):])
            return self.saved[index] if index < len(self.saved) else None
        if isinstance(slot, int):
            index = slot + shift
            return self.params[index] if 0 <= index < len(self.params) else None
        return slot if slot in self.params or slot in self.keywords else None

    def as_json(self) -> dict:
        return {"qualname": self.qualname, "params": list(self.params),
                "keywords": list(self.keywords), "required": self.required_json(),
                "edges": [vars(e) for e in self.edges], "saved": list(self.saved)}

    def required_json(self) -> dict:
        return {p: {"kind": r.kind, "writes": r.writes,
                    "evidence": [vars(e) for e in r.evidence]}
                for p, r in self.required.items()}

    @staticmethod
    def from_json(data: dict) -> "FunctionContract":
        return FunctionContract(
            data["qualname"], tuple(data["params"]), tuple(data["keywords"]),
            {p: Requirement(r["kind"], tuple(Evidence(**e) for e in r["evidence"]), r["writes"])
             for p, r in data["required"].items()},
            [Edge(**e) for e in data["edges"]], tuple(data.get("saved", ())))


@dataclass
class ModuleSummary:
    """What one module contributes to the project's contracts."""

    module: str
    path: str
    functions: dict[str, FunctionContract] = field(default_factory=dict)
    ops: dict[str, str] = field(default_factory=dict)  # "ns.op" -> implementing qualname
    extensions: dict[str, bool] = field(default_factory=dict)  # module -> made contiguous
    imported_modules: tuple[str, ...] = ()  # relative imports, resolved (for extensions)
    # for the runtime watcher, not serialized: line -> (kind, what) of each layout guard, and
    # the lines of Triton launches that pass a tensor without (all of) its strides
    guards: dict[int, tuple[str, str]] = field(default_factory=dict)
    launches: set[int] = field(default_factory=set)
    # line -> (tensor, tensor whose strides address it, kernel) of launches that address one
    # tensor argument with another's strides
    cross_strides: dict[int, list[tuple[str, str, str]]] = field(default_factory=dict)
    checkers: frozenset[str] = frozenset()  # its own functions that work like torch._check
    # made without the function passes, whose functions cannot require a parameter by their
    # own code (layout/contracts/evidence.py), and the names its code spells, by which a
    # project run learns whether they pass one on to a function that does
    partial: bool = False
    names: frozenset[str] = frozenset()
    # partial and made from the text alone, never parsed (evidence.py, `from_text`)
    unparsed: bool = False

    def as_json(self) -> dict:
        data = {"module": self.module, "path": self.path,
                "functions": {k: f.as_json() for k, f in self.functions.items()},
                "ops": self.ops, "extensions": self.extensions,
                "imported_modules": list(self.imported_modules),
                "checkers": sorted(self.checkers)}
        if self.partial:
            data["names"] = sorted(self.names)
        return data

    @staticmethod
    def from_json(data: dict) -> "ModuleSummary":
        return ModuleSummary(data["module"], data["path"],
                             {k: FunctionContract.from_json(f)
                              for k, f in data["functions"].items()},
                             dict(data["ops"]), dict(data["extensions"]),
                             tuple(data["imported_modules"]),
                             checkers=frozenset(data.get("checkers", ())),
                             partial="names" in data, names=frozenset(data.get("names", ())))


def stronger(new: str, old: str) -> bool:
    order = {"unknown": 0, "inner": 1, "full": 2}
    return order[new] > order[old]
