"""Symbolic dimension sizes: enough algebra to tell which dims a `.view(...)` merges.

A size is `(coefficient, factors)`: `12` is `(12, ())`, `h * d` is `(1, ("d", "h"))`, and `None`
is a size we know nothing about. Two sizes are equal when their normal forms are, which is what
lets `x.view(B, N, H * D)` be matched against an input whose dims are `(B, N, H, D)`.
"""
from __future__ import annotations

import ast
import copy
import functools
from typing import Optional, Sequence

Size = Optional[tuple[int, tuple[str, ...]]]

ONE: Size = (1, ())
WILDCARD = "-1"  # marker used in view targets for `-1`


def literal(value: int) -> Size:
    return (value, ())


def symbol(text: str) -> Size:
    return (1, (text,))


MADE = "!"  # the mark of a made size's name: not Python, so always one name (witness_sizes)


def made_symbol(text: str) -> Size:
    """The size code names `text` (`y.size(0)`) where an op made it and the model lost it (a
    cat's length, a chunk of a lost tensor's): one size wherever the code names it, so that
    a view of it is matched dim by dim, but no caller's choice. An op may give it only some
    values (a pad of 1 on each side has 3 or more), so a witness may not pick one: it must
    fail at every size it tries for it (witness.py)."""
    return (1, (text + MADE,))


def is_made(name: str) -> bool:
    return name.endswith(MADE)


def shown(name: str) -> str:
    """A name as the code writes it, without the mark of a made size."""
    return name[:-len(MADE)] if is_made(name) else name


def multiply(a: Size, b: Size) -> Size:
    if a is None or b is None:
        return None
    return (a[0] * b[0], tuple(sorted(a[1] + b[1])))


def product(sizes: Sequence[Size]) -> Size:
    total: Size = ONE
    for size in sizes:
        total = multiply(total, size)
    return total


def quotient(whole: Size, part: Size) -> Size:
    """`whole / part` where it is a size for every value of the names (`B*N / N` is `B`,
    `12 / 4` is 3); None where it is not (`B*N / 3`, `12 / 5`, a part of 0)."""
    if whole is None or part is None or not part[0] or whole[0] % part[0]:
        return None
    left = list(whole[1])
    for name in part[1]:
        if name not in left:
            return None
        left.remove(name)
    return (whole[0] // part[0], tuple(left))


def substitute(size: Size, name: str, value: int) -> Size:
    """`size` where the symbol `name` is `value` (a size test the code made: `if n == 1:`),
    in the symbols made of it too (`B - 1` is 0 where B is 1)."""
    if size is None or not any(name in f for f in size[1]):
        return size
    out: Size = (size[0], ())
    for factor in size[1]:
        out = multiply(out, literal(value) if factor == name else
                       _bound(factor, name, value) if name in factor else symbol(factor))
    return out


def _bound(text: str, name: str, value: int) -> Size:
    """The symbol `text` where the name `name` in it is `value`: a number where no other name
    is left (`B - 1`, `(n + 1) // 2`), else the text with the number in it."""
    from contiglint.layout.model.witness_sizes import expression, value_of

    node = expression(text)
    if node is None:
        return symbol(text)

    class Bind(ast.NodeTransformer):
        def visit(self, part):
            if isinstance(part, ast.expr) and ast.unparse(part) == name:
                return ast.Constant(value)
            return super().visit(part)

    bound = ast.unparse(Bind().visit(copy.deepcopy(node)))
    number = value_of(bound, {})
    return literal(number) if number is not None and number >= 0 else symbol(bound)


def combined(a: Size, op: ast.operator, b: Size) -> Size:
    """`a op b` (a `+`, `-`, `//` or `%` of sizes, one of them a symbol) named by the texts of
    the operands' sizes, as indexing names the sizes it makes (`(N + 1) // 2 - 1`): where
    code computes a size from another (`v.size(0) - 1`), the name is made of the names that
    size is made of, not of the code's text, so it matches the size an op gave a dim and a
    witness gives no value to the name `v.size(0)`. None where an operand is unknown or a
    size an op made (its name is no choice: `made_symbol`)."""
    if a is None or b is None or any(is_made(f) for f in a[1] + b[1]):
        return None
    return symbol(_combined_text(size_text(a), type(op), size_text(b)))


@functools.lru_cache(maxsize=4096)
def _combined_text(left: str, op: type, right: str) -> str:
    return ast.unparse(ast.BinOp(ast.parse(left, mode="eval").body, op(),
                                 ast.parse(right, mode="eval").body))


def size_name(owner: str, index: int) -> str:
    """The name of dim `index` of the tensor spelled `owner`, as code reads it: `x.size(1)`
    (`x.shape[1]` reads the same size)."""
    return f"{owner}.size({index})"


def own_size_names(owner: str, index: int, rank: int) -> tuple[str, str]:
    """The symbols code writes for dim `index` of `owner` at this rank: `x.size(1)` and, counted
    from the back, `x.size(-2)` (rank 3)."""
    return size_name(owner, index), size_name(owner, index - rank)


def size_text(size: Size) -> str:
    """`12`, `H`, `3*C`, `H*D`, a Python expression of the size; `?` for a size not known."""
    if size is None:
        return "?"
    coefficient, factors = size
    parts = ([str(coefficient)] if coefficient != 1 or not factors else []) + \
        [shown(f) if f.replace(".", "").isidentifier() or len(factors) == 1 and
         coefficient == 1 else f"({shown(f)})" for f in factors]
    return "*".join(parts)


def is_one(size: Size) -> bool:
    return size == ONE


Target = Sequence[object]  # each item a Size or WILDCARD


def align(source: Sequence[Size], target: Target) -> Optional[list[tuple[range, range]]]:
    """Pair up runs of source dims with runs of target dims of equal total size.

    Matches from the front and from the back; whatever is left in the middle forms one group
    when either side of it has at most one dim (a pure split or a pure merge). Returns the
    `(source_range, target_range)` groups in order, or None when the sizes leave the grouping
    open (say `(a, b, c) -> (d, e)` with unrelated symbols).
    """
    n, m = len(source), len(target)
    front = _greedy(source, target)
    i, j = (front[-1][0].stop, front[-1][1].stop) if front else (0, 0)
    back_rev = _greedy(list(reversed(source[i:])), list(reversed(target[j:])))
    back = [(range(n - s.stop, n - s.start), range(m - t.stop, m - t.start)) for s, t in back_rev]
    k, q = (back[-1][0].start, back[-1][1].start) if back else (n, m)
    middle = []
    if k > i or q > j:
        if k - i > 1 and q - j > 1:
            return None
        middle = [(range(i, k), range(j, q))]
    return front + middle + list(reversed(back))


def _greedy(source: Sequence[Size], target: Target) -> list[tuple[range, range]]:
    """Longest run of groups, from the start, whose products provably agree."""
    groups: list[tuple[range, range]] = []
    i = j = 0
    n, m = len(source), len(target)
    while i < n and j < m:
        left, right = source[i], target[j]
        si, sj = i + 1, j + 1
        while True:
            if left is None or right is None or right == WILDCARD:
                return groups
            if left == right:
                break
            if _smaller(left, right) and si < n:
                left = multiply(left, source[si])
                si += 1
            elif _smaller(right, left) and sj < m and target[sj] != WILDCARD:
                right = multiply(right, target[sj])
                sj += 1
            else:
                return groups
        groups.append((range(i, si), range(j, sj)))
        i, j = si, sj
    return groups


def _smaller(small: Size, big: Size) -> bool:
    """True when `big` is `small` times more factors, so `small`'s side must grow."""
    if small is None or big is None or small == big:
        return False
    if not small[1] and not big[1]:
        return 0 < small[0] < big[0]
    return small[0] > 0 and quotient(big, small) is not None
