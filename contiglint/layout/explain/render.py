"""`contiglint explain` output: the tensors at a place, as text or JSON; the hover's body."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Optional

from contiglint.engine import SourceError
from contiglint.findings import Finding
from contiglint.layout.explain.query import TensorReport

NO_WITNESS = "witness: none (the engine gives no concrete failing sizes for this finding)"


@dataclass
class Explanation:
    path: str
    line: int
    column: Optional[int]
    tensors: list[TensorReport] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column,
                "tensors": [t.as_json() for t in self.tensors],
                "findings": [{"code": f.code, "line": f.line, "column": f.column,
                              "end_line": f.end_line, "end_column": f.end_column,
                              "message": f.message,
                              "related": [{"line": r.line, "column": r.column,
                                           "message": r.message} for r in f.related],
                              "witness": f.witness.as_json() if f.witness else None}
                             for f in self.findings],
                "errors": [{"line": e.line, "column": e.column, "message": e.message,
                            "kind": e.kind} for e in self.errors]}

    def to_json(self) -> str:
        return json.dumps(self.as_json(), indent=2, ensure_ascii=False)

    def to_text(self) -> str:
        place = f"{self.path}:{self.line}" + (f":{self.column}" if self.column else "")
        out = [f"{place}: {e.message}" for e in self.errors]
        if not self.tensors:
            out.append(f"{place}: no tensor the analysis knows of here")
        for tensor in self.tensors:
            out.append(f"{self.path}:{tensor.line}:{tensor.column}: `{tensor.expression}`")
            out.extend("  " + line for line in layout_lines(tensor))
            if tensor.chain:
                out.append("  how it got this layout:")
                if tensor.left_out:
                    out.append(f"    ({tensor.left_out} earlier steps not shown)")
                width = max(len(s.text) for s in tensor.chain)
                for step in tensor.chain:
                    out.append(f"    line {step.line:<4} {step.text:<{width}}  "
                               f"{step.summary()}")
        for finding in self.findings:
            out.append(f"{self.path}:{finding.line}:{finding.column}: {finding.code} "
                       f"{finding.message}")
            out.extend(f"  line {r.line}: {r.message}" for r in finding.related
                       if not r.message.startswith("witness: "))  # said below, once
            out.append("  witness: " + finding.witness.describe() if finding.witness else
                       f"  {NO_WITNESS}")
        return "\n".join(out)


def layout_lines(tensor: TensorReport) -> list[str]:
    """The layout facts of one tensor, one per line; per call context when they differ."""
    if len(tensor.layouts) == 1:
        return tensor.layouts[0][1].lines()
    out = []
    for context, layout in tensor.layouts:
        out.append(f"{context}:")
        out.extend("  " + line for line in layout.lines())
    return out


def hover_markdown(tensor: TensorReport) -> str:
    """The hover's body: the same summary as explain's, in Markdown."""
    lines = [f"**`{tensor.expression}`** (contiglint layout)", ""]
    lines.extend(f"- {line}" if not line.startswith(" ") else f"  - {line.strip()}"
                 for line in layout_lines(tensor))
    if tensor.chain:
        lines += ["", "how it got this layout:", ""]
        if tensor.left_out:
            lines.append(f"- ({tensor.left_out} earlier steps not shown)")
        lines.extend(f"- line {step.line}: `{step.text}` → {step.summary()}"
                     for step in tensor.chain)
    return "\n".join(lines)
