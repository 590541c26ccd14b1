"""The names a witness gives values to: the atoms a size's text is made of (`C // H` is C and
H, `x.size(0)` is one name), the value of a size under an assignment, the assignments a search
tries (distinct small sizes first, then the literal sizes the problem names, then every small
combination), and solving one name so that a view's two sides have the same number of elements.
"""
from __future__ import annotations

import ast
import itertools
from functools import lru_cache
from math import prod
from typing import Callable, Optional, Sequence, TypeVar

from contiglint.layout.model.sizes import Size

DOMAIN = (2, 3, 4, 5, 6, 7)  # sizes a witness tries: size 1 hides every layout problem
TRIES = 1500  # assignments tried at most per witness (each costs microseconds)
Found = TypeVar("Found")


@lru_cache(maxsize=4096)
def expression(text: str) -> Optional[ast.expr]:
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        return None


def atoms(text: str, out: dict) -> None:
    """The names a symbol's text is made of: `C // H` -> C, H; `x.size(0)` is one name."""
    node = expression(text)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
        atoms(ast.unparse(node.left), out)
        atoms(ast.unparse(node.right), out)
    elif is_min(node):
        for arg in node.args:
            atoms(ast.unparse(arg), out)
    elif not (isinstance(node, ast.Constant) and isinstance(node.value, int)):
        out.setdefault(text, None)


def is_atom(text: str) -> bool:
    """Whether a symbol's text is one name (`B`, `x.size(0)`), not one made of others."""
    found: dict = {}
    atoms(text, found)
    return list(found) == [text]


ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


def is_min(node: Optional[ast.expr]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == "min" and len(node.args) == 2 and not node.keywords


def value_of(text: str, env: dict) -> Optional[int]:
    if text in env:
        return env[text]
    node = expression(text)
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if is_min(node):  # a diagonal's length: min(n1, n2)
        values = [value_of(ast.unparse(arg), env) for arg in node.args]
        return None if None in values else min(values)
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC)):
        return None
    left, right = value_of(ast.unparse(node.left), env), value_of(ast.unparse(node.right), env)
    if left is None or right is None or (isinstance(node.op, (ast.FloorDiv, ast.Mod))
                                         and right == 0):
        return None
    return {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__,
            ast.FloorDiv: int.__floordiv__, ast.Mod: int.__mod__}[type(node.op)](left, right)


def size_value(size: Size, env: dict, unknown: str) -> Optional[int]:
    if size is None:
        return env.get(unknown)
    coefficient, factors = size
    values = [value_of(f, env) for f in factors]
    return None if None in values else coefficient * prod(values)


class Names:
    """The free names of a problem: each symbol's atoms, and one anonymous name for each size
    the code does not show (shown as `?`)."""

    def __init__(self) -> None:
        self.atoms: dict[str, None] = {}
        self.anonymous = 0

    def add(self, size: Size) -> str:
        if size is None:
            self.anonymous += 1
            name = f"?{self.anonymous}"
            self.atoms.setdefault(name, None)
            return name
        for factor in size[1]:
            atoms(factor, self.atoms)
        return ""


def assignments(names: Sequence[str], hints: Sequence[int]) -> itertools.chain:
    """Distinct values first (no accidental equalities), the same with one name set to a
    literal size of the problem (`x.view(b, 33, -1)` needs a factor 33), then all equal, then
    every small combination (or a fixed spread of them when there are many names)."""
    n = len(names)
    distinct = [tuple(DOMAIN[i % len(DOMAIN)] for i in range(n))]
    hinted = [distinct[0][:i] + (hint,) + distinct[0][i + 1:] for hint in hints
              for i in range(n)]
    equal = [(v,) * n for v in DOMAIN[:3]]
    if len(DOMAIN) ** n <= TRIES:
        rest = itertools.product(DOMAIN, repeat=n)
    else:  # a fixed spread of the combinations (a multiplicative walk through their indices)
        total = len(DOMAIN) ** n
        rest = (digits(i * 7919 % total, n) for i in range(1, TRIES))
    return itertools.chain(distinct, hinted, equal, rest)


def digits(index: int, n: int) -> tuple[int, ...]:
    out = []
    for _ in range(n):
        index, digit = divmod(index, len(DOMAIN))
        out.append(DOMAIN[digit])
    return tuple(out)


def search(names: Names, attempt: Callable[[dict], Optional[Found]],
            sizes: Sequence[Size] = ()) -> Optional[Found]:
    order = list(names.atoms)
    hints = sorted(({s[0] for s in sizes if s is not None and s[0] > 1} | _divided(sizes)) -
                   set(DOMAIN))
    for values in itertools.islice(assignments(order, hints), TRIES):
        found = attempt(dict(zip(order, values)))
        if found is not None:
            return found
    return None


def _divided(sizes: Sequence[Size]) -> set[int]:
    """Twice each literal a size divides a name by (`C // 4`: 8), so that a witness may give
    the quotient 2: size 1 hides every layout problem, and the domain stops below 8."""
    found = set()
    for size in sizes:
        for factor in size[1] if size is not None else ():
            node = expression(factor)
            for part in ast.walk(node) if node is not None else ():
                if isinstance(part, ast.BinOp) and isinstance(part.op, ast.FloorDiv) and \
                        isinstance(part.right, ast.Constant) and \
                        isinstance(part.right.value, int) and part.right.value > 1:
                    found.add(2 * part.right.value)
    return found


def factors(sizes: Sequence[Size], unknown: Sequence[str]) -> tuple[int, list[str]]:
    """A product of sizes as its literal part and the names that are whole factors of it
    (with repeats)."""
    literal, names = 1, []
    for size, name in zip(sizes, unknown):
        if size is None:
            names.append(name)
        else:
            literal *= size[0]
            names.extend(size[1])
    return literal, names


def solve(env: dict, sides: tuple[tuple[int, list[str]], ...]) -> Optional[dict]:
    """`env` with one name changed so that both sides' products agree (`x.view(B, N, 768)` of
    a `(B, N, H, D)` tensor: D = 768 / H), or None. Only a name that is a whole factor once
    more on one side than on the other can be solved for."""
    def total(side: tuple[int, list[str]], values: dict) -> Optional[int]:
        parts = [value_of(f, values) for f in side[1]]
        return None if None in parts else side[0] * prod(parts)

    source, target = sides
    for name in env:
        surplus = source[1].count(name) - target[1].count(name)
        if abs(surplus) != 1:
            continue
        trial = dict(env, **{name: 1})
        a, b = total(source, trial), total(target, trial)
        if not a or not b:
            continue
        big, small = (b, a) if surplus > 0 else (a, b)
        if big % small == 0 and big // small >= 2:
            trial[name] = big // small
            if total(source, trial) == total(target, trial):
                return trial
    return None
