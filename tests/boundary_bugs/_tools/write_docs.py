import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance_data import B

root = Path(__file__).resolve().parents[1]
for (folder, repo, refs, title, quote, buggy, fix, faithful, kind, dist) in B:
    d = root / folder
    assert d.is_dir(), folder
    bugline = [l.strip() for l in (d / "buggy.py").read_text().splitlines() if "# bug-line" in l][0]
    txt = f"""# {folder}

- **Repository:** {repo}
- **Thread(s):** """ + "; ".join(f"{lab}: {url}" for lab, url in refs) + f"""
- **Title:** {title}

## Error / symptom quoted from the thread
> {quote}

## What the buggy code does
{buggy}

`# bug-line`: `{bugline}`

## The fix (fixed.py)
{fix}

## Boundary and distance
- Boundary kind: {kind}
- Calls between the layout break and the boundary: {dist}

## Faithfulness of the re-creation
{faithful}

Emulation: native kernels are pure-Python stand-ins reading memory from the tensor's storage at
`storage_offset()` (= `data_ptr()`) as a dense row-major block (`_support/raw.py`); Triton kernels
run through `_support/triton_emu.py` (tensor args lowered to bare pointers, no strides); NCCL is the
`fakenccl` c10d backend in `_support/nccl.py` (a `torch.distributed.ProcessGroup` subclass registered
with `Backend.register_backend`, applying ProcessGroupNCCL.cpp's per-op layout checks); safetensors is
the real library. Re-created from the public thread text, not copied from any project source.
"""
    (d / "PROVENANCE.md").write_text(txt)

BL = {"03": "wrapper call (2 calls to all_gather)", "04": "wrapper call (1 call to reduce_scatter_tensor)",
      "05": "layout-break site (fix location)", "13": "boundary call (fix on the guard line above)",
      "23": "layout-break site (fix location)", "24": "P2POp construction (then batch_isend_irecv)",
      "30": "layout-break site (fix location)", "31": "layout-break site (fix location)",
      "32": "wrapper call (2 calls to all_gather_into_tensor)"}
lines = ["# INDEX", "",
         "Boundary kinds: nccl collective / p2p (fakenccl c10d backend), kernel / custom op / raw pointer "
         "(native stand-ins reading data_ptr() densely), triton (strideless stand-in), guard "
         "(TORCH_CHECK / assert / wrapper check), safetensors (real library).  'Calls' = function "
         "calls between the line that creates the non-contiguous layout and the boundary call.", "",
         "| # | folder | source | boundary kind | calls from layout break to boundary | bug-line is |",
         "|---|---|---|---|---|---|"]
for (folder, repo, refs, title, quote, buggy, fix, faithful, kind, dist) in B:
    lines.append(f"| {folder[:2]} | `{folder}` | {repo} {refs[0][0]} ({refs[0][1]}) | {kind} | {dist} | "
                 f"{BL.get(folder[:2], 'boundary call')} |")
(root / "INDEX.md").write_text("\n".join(lines) + "\n")
print(len(B), "provenance files + INDEX.md written")
