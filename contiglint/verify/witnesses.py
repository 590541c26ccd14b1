"""Replays the witnesses of findings on real torch.

A default-mode finding names concrete sizes and strides under which torch fails
(layout/model/witness.py). `replay` builds exactly that tensor with `torch.empty_strided` and
does to it what the witness says; `witness_verdicts` turns each replay of a program's findings
into a verdict, so `contiglint verify` fails on a wrong witness whatever the fixture's cases
happened to run.
"""
from __future__ import annotations

from typing import Optional, Sequence

from contiglint.findings import Finding
from contiglint.verify.verdicts import WITNESS_HOLDS, WRONG_WITNESS, Verdict

_INTEGERS = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}


def replay(witness, device: str = "cpu") -> Optional[str]:
    """None when torch fails on the witness's tensor as the witness says; else what torch did."""
    import torch

    itemsize = witness.itemsizes[0] if witness.op == "view_dtype" else 4
    dtype = getattr(torch, _INTEGERS[itemsize])
    tensor = torch.empty_strided(witness.sizes, witness.strides, dtype=dtype, device=device)
    if witness.op == "contiguous":
        return None if not tensor.is_contiguous() else "the tensor is contiguous"
    if witness.op == "rows":
        return None if tensor.dim() and tensor.stride(-1) != 1 else "its last dim is unit-stride"
    if witness.op == "windows":  # torch detects none of it: the offsets are compared
        offsets = torch.zeros((), dtype=torch.long)
        for size, stride in zip(tensor.shape, tensor.stride()):
            offsets = offsets.unsqueeze(-1) + torch.arange(size) * stride
        return None if offsets.unique().numel() < offsets.numel() else \
            "no two elements share memory"
    try:
        if witness.op == "view":
            viewed = tensor.view(witness.target)
        elif witness.op == "overlap":  # the in-place write the elements' aliases refuse
            viewed = tensor.add_(1)
        else:
            viewed = tensor.view(getattr(torch, _INTEGERS[witness.itemsizes[1]]))
    except RuntimeError as error:
        first = str(error).splitlines()[0]
        return None if witness.error in first else f"raised another error: {first}"
    return f"did not raise (result {tuple(viewed.shape)} with strides {viewed.stride()})"


def witness_verdicts(path: str, findings: Sequence[Finding], device: str = "cpu") \
        -> list[Verdict]:
    out = []
    for finding in findings:
        if finding.witness is None:
            continue
        observed = replay(finding.witness, device)
        out.append(Verdict(path, finding.line, finding.code,
                           WITNESS_HOLDS if observed is None else WRONG_WITNESS,
                           finding.witness.describe(), observed or "failed as the witness says"))
    return out
