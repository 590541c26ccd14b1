"""Mutation sites of benchmarks/mutants.py, found with `ast`, and the one-line edits that make them.

Two operators, each a single edit inside one line of real code:

* `drop-contiguous` deletes a `.contiguous()` (no arguments) whose result reaches, in the same
  function, a layout-sensitive sink: directly chained (`x.contiguous().view(...)`), as an argument
  (`kernel[grid](x.contiguous())`), or through a plain name assigned once in the function
  (`y = x.contiguous()` ... `y.view(...)`). Sinks: `.view(`, raw reads (`.data_ptr()`,
  `.untyped_storage()`, `.storage()`), custom-kernel calls (a Triton launch `k[grid](...)`, or a
  callee whose dotted name speaks of a kernel or an extension: `kernel`, `_C`, `torch.ops`,
  `_ext`, `cuda`, `triton`), `torch.distributed` collectives, `register_buffer`, `nn.Parameter`
  and `torch.jit.trace`.
* `reshape-to-view` turns the method call `.reshape(` into `.view(` (not `np.reshape`,
  `torch.reshape` and the like: a module's function, not a tensor's method).

A site is keyed so that the key survives line shifts: package, version, path inside the
package, operator, the stripped text of the edited line, and the occurrence index among the
file's sites of that operator on lines of the same stripped text.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

OPERATORS = ("drop-contiguous", "reshape-to-view")
RAW_READS = {"data_ptr", "untyped_storage", "storage"}
COLLECTIVES = {"all_reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter",
               "reduce_scatter_tensor", "broadcast", "send", "recv", "isend", "irecv",
               "all_to_all", "all_to_all_single", "reduce", "gather", "scatter",
               "all_gather_base", "_all_gather_base", "_reduce_scatter_base"}
KERNEL_WORDS = ("kernel", "_c.", "torch.ops", "_ext", "cuda", "triton")
MODULE_RECEIVERS = {"np", "numpy", "torch", "jnp", "jax", "tf", "einops", "F", "math"}


@dataclass
class Site:
    path: str  # inside the package, posix
    operator: str
    line: int  # 1-based, the edited line
    col: int  # byte offset of the edit in that line
    original: str  # the whole line, as in the file
    mutated: str
    sink_lines: list[int] = field(default_factory=list)
    sink: str = ""  # what the result reaches (drop-contiguous), or "view"
    occurrence: int = 0

    @property
    def text(self) -> str:
        return self.original.strip()

    def key(self, package: str, version: str) -> tuple:
        return (package, version, self.path, self.operator, self.text, self.occurrence)


def key_of(entry: dict) -> tuple:
    """The key of a stored mutant (see Site.key)."""
    return (entry["package"], entry["version"], entry["path"], entry["operator"],
            entry["original"].strip(), entry["occurrence"])


def dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call):
        parts.append(dotted(node.func) + "()")
    return ".".join(reversed(parts))


def arg_sink(call: ast.Call, triton: bool = False) -> str | None:
    """What kind of sink `call` is for the tensors passed to it, or None; `triton`: the module
    imports triton, so `name[grid](...)` is a kernel launch."""
    func = call.func
    if isinstance(func, ast.Subscript):
        return "triton launch" if triton and isinstance(func.value, (ast.Name, ast.Attribute)) \
            else None
    name = dotted(func)
    last = name.rsplit(".", 1)[-1]
    low = name.lower()
    if last in COLLECTIVES and ("dist" in low or "funcol" in low):
        return f"collective {last}"
    if last == "register_buffer":
        return "register_buffer"
    if last == "Parameter":
        return "nn.Parameter"
    if low.endswith("jit.trace"):
        return "torch.jit.trace"
    if any(word in low for word in KERNEL_WORDS) and last not in ("contiguous", "view"):
        return f"kernel {name}"
    return None


def receiver_sink(node: ast.AST, parents: dict) -> ast.Call | None:
    """The call `node.view(...)` / `node.data_ptr()` ... that `node` is the receiver of."""
    attr = parents.get(node)
    if isinstance(attr, ast.Attribute) and attr.value is node and (
            attr.attr == "view" or attr.attr in RAW_READS):
        call = parents.get(attr)
        if isinstance(call, ast.Call) and call.func is attr:
            return call
    return None


def reached_sink(node: ast.AST, parents: dict,
                 triton: bool = False) -> tuple[ast.Call, str] | None:
    """The sink that the value of `node` flows into directly (receiver or argument)."""
    call = receiver_sink(node, parents)
    if call is not None:
        return call, call.func.attr
    parent = parents.get(node)
    if isinstance(parent, ast.keyword):
        parent = parents.get(parent)
    if isinstance(parent, ast.Call) and parent.func is not node:
        kind = arg_sink(parent, triton)
        if kind is not None:
            return parent, kind
    return None


def _is_contiguous_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "contiguous" and not node.args and not node.keywords)


def _stores(function: ast.AST) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            counts[node.arg] = counts.get(node.arg, 0) + 1
    return counts


def _sink_of_contiguous(call: ast.Call, function: ast.AST, parents: dict, stores: dict[str, int],
                        triton: bool) -> tuple[ast.Call, str] | None:
    found = reached_sink(call, parents, triton)
    if found is not None:
        return found
    assign = parents.get(call)
    if not (isinstance(assign, ast.Assign) and assign.value is call and len(assign.targets) == 1
            and isinstance(assign.targets[0], ast.Name)):
        return None
    name = assign.targets[0].id
    if stores.get(name) != 1:
        return None
    uses = sorted((n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name
                   and isinstance(n.ctx, ast.Load)), key=lambda n: (n.lineno, n.col_offset))
    for use in uses:
        if (use.lineno, use.col_offset) > (assign.end_lineno, assign.end_col_offset):
            found = reached_sink(use, parents, triton)
            if found is not None:
                return found
    return None


def _edit(lines: list[str], line: int, start: int, end: int, new: str) -> str:
    raw = lines[line - 1].encode("utf-8")
    return (raw[:start] + new.encode("utf-8") + raw[end:]).decode("utf-8")


def sites_in(source: str, path: str) -> list[Site]:
    """Every site of both operators in one module's source (empty if it does not parse)."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    lines = source.splitlines()
    parents = {child: node for node in ast.walk(module) for child in ast.iter_child_nodes(node)}
    found: dict[tuple, Site] = {}
    triton = any(isinstance(n, (ast.Import, ast.ImportFrom)) and "triton" in ast.unparse(n)
                 for n in ast.walk(module))
    functions = [n for n in ast.walk(module)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for function in functions:
        stores = _stores(function)
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            if _is_contiguous_call(node):
                receiver = node.func.value
                if receiver.end_lineno != node.end_lineno:
                    continue
                row = lines[node.end_lineno - 1].encode("utf-8")
                if row[receiver.end_col_offset:node.end_col_offset].decode(
                        "utf-8", "replace").replace(" ", "") != ".contiguous()":
                    continue
                sink = _sink_of_contiguous(node, function, parents, stores, triton)
                if sink is None:
                    continue
                call, kind = sink
                where = (node.end_lineno, receiver.end_col_offset, "drop-contiguous")
                sink_lines = sorted({call.lineno, getattr(call.func, "end_lineno", call.lineno)})
                found[where] = Site(path, "drop-contiguous", node.end_lineno,
                                    receiver.end_col_offset, lines[node.end_lineno - 1],
                                    _edit(lines, node.end_lineno, receiver.end_col_offset,
                                          node.end_col_offset, ""), sink_lines, kind)
            elif (isinstance(node.func, ast.Attribute) and node.func.attr == "reshape"
                  and not (isinstance(node.func.value, ast.Name)
                           and node.func.value.id in MODULE_RECEIVERS)):
                line, end = node.func.end_lineno, node.func.end_col_offset
                if lines[line - 1].encode("utf-8")[end - 7:end] != b"reshape":
                    continue
                found[(line, end - 7, "reshape-to-view")] = Site(
                    path, "reshape-to-view", line, end - 7, lines[line - 1],
                    _edit(lines, line, end - 7, end, "view"), sorted({node.lineno, line}), "view")
    sites = [found[k] for k in sorted(found)]
    seen: dict[tuple, int] = {}
    for site in sites:
        group = (site.operator, site.text)
        site.occurrence = seen.get(group, 0)
        seen[group] = site.occurrence + 1
    return sites


def apply(source: str, site: Site) -> str:
    """`source` with the site's line replaced by its mutated text; the line must still match."""
    lines = source.splitlines(keepends=True)
    old = lines[site.line - 1]
    if old.rstrip("\r\n") != site.original:
        raise ValueError(f"{site.path}:{site.line} no longer reads {site.original.strip()!r}")
    ending = old[len(old.rstrip("\r\n")):]
    lines[site.line - 1] = site.mutated + ending
    return "".join(lines)


def relocate(entry: dict, source: str) -> Site | None:
    """The site of a stored mutant in `source` as it is now, found by key (line shifts ok)."""
    for site in sites_in(source, entry["path"]):
        if site.operator == entry["operator"] and site.text == entry["original"].strip() \
                and site.occurrence == entry["occurrence"]:
            return site
    return None
