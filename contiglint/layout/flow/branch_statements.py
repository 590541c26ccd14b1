"""`if` and `assert` in the flow pass: both branches run and join, refined by the layout
checks in the test (`if x.is_contiguous():`), a branch the analysis knows the truth of runs
alone, and a condition split earlier replays (conditions.py)."""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.flow import conditions
from contiglint.layout.flow.environments import (ABOVE_ONE, AT_ONE, Env, join_envs,
                                                 sizes_above_one, sizes_at_one, truth_of)
from contiglint.layout.model.sizes import Size, literal, size_text, symbol
from contiglint.layout.model.stride_checks import layout_reads, stride_truth, undecided_strides
from contiglint.layout.model.values import (
    OPAQUE,
    Const,
    IntVal,
    Kind,
    UNKNOWN_TENSOR,
    Tensor,
)
from contiglint.layout.model.path_facts import at_ranks, bind_size, not_at_rank

# where `rank OP k` holds and where it fails, as the ranks each side allows: (lowest, highest)
# from k, or "not k"
_RANK_SIDES = {
    ast.Eq: (lambda k: (k, k), lambda k: k),
    ast.NotEq: (lambda k: k, lambda k: (k, k)),
    ast.Lt: (lambda k: (0, k - 1), lambda k: (k, None)),
    ast.LtE: (lambda k: (0, k), lambda k: (k + 1, None)),
    ast.Gt: (lambda k: (k + 1, None), lambda k: (0, k)),
    ast.GtE: (lambda k: (k, None), lambda k: (0, k - 1)),
}
_FLIPPED = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}


class BranchMixin:
    """The branch statements of `Frame` (frame.py)."""

    def stmt_If(self, node: ast.If) -> None:
        truth = truth_of(self.evaluate(node.test))
        if truth is None and self.env is not None and \
                self.program.index.queries_layout(node.test):  # `x.stride(-1) != 1`
            truth = stride_truth(node.test, lambda name: self.env.get(name))
        self.sinks.layout_branch(node.test)
        yes, no = self.refine(node.test, self.env)
        condition = conditions.condition_of(node.test) if truth is None else None
        split = self.splits.get(condition.key) if condition is not None else None
        if split is not None and conditions.valid(split, self.assigned) and yes is not None:
            truth = conditions.truth(condition, split)  # correlated with an earlier `if`
            body, index = self.blocks[-1] if self.blocks else (None, 0)
            replayed = None
            if truth is None and split.where is not None and split.where[0] == id(body) \
                    and split.where[1] < index and split.paths is not None:
                replayed = self.replay(body[split.where[1] + 1:index], split.paths)
            if replayed is not None:
                yes, no = conditions.sides(condition, split, replayed)
                truth = True if no is None else False if yes is None else None
            else:
                yes, no = dict(yes), dict(no)
                conditions.restore(condition, split, yes, True, self.assigned)
                conditions.restore(condition, split, no, False, self.assigned)
        if condition is not None and split is None and truth is None:
            # an earlier `if` on a value this test excludes: where this one holds, it did not
            held = yes if condition.positive else no
            for key, earlier in self.splits.items():
                if conditions.excludes(condition.key, key) and \
                        conditions.valid(earlier, self.assigned) and held is not None:
                    held = dict(held)
                    conditions.restore_excluded(earlier, held, self.assigned)
            if condition.positive:
                yes = held
            else:
                no = held
        before = [self.assigned.get(n, 0) for n in condition.names] if condition else None
        after_yes = self.branch(node.body, yes) if truth is not False else None
        after_no = self.branch(node.orelse, no) if truth is not True else None
        self.env = join_envs(after_yes, after_no)
        if condition is not None and self.env is not None and \
                before == [self.assigned.get(n, 0) for n in condition.names]:
            recorded = conditions.record(condition, after_yes, after_no, self.env,
                                         self.assigned)
            if recorded is not None:
                body, index = self.blocks[-1] if self.blocks else (None, 0)
                self.splits[condition.key] = evolve(recorded, where=(id(body), index))

    def replay(self, statements: list[ast.stmt], paths: tuple) -> Optional[tuple[Env, Env]]:
        """Run `statements` again on each of two environments, reporting nothing and leaving
        the frame as it was: what each path holds when it reaches the next statement."""
        saved = (self.env, self.splits, self.assigned, len(self.returns), len(self.yields),
                 self.program.recording, [len(e) for e in self.loop_exits],
                 [len(h) for h in self.loop_heads])
        self.program.recording = False
        out = []
        try:
            for env in paths:
                self.env, self.splits, self.assigned = dict(env), {}, dict(saved[2])
                self.run_block(statements)
                out.append(self.env)
        finally:
            self.env, self.splits, self.assigned = saved[:3]
            del self.returns[saved[3]:], self.yields[saved[4]:]
            self.program.recording = saved[5]
            for kept, exits in zip(saved[6], self.loop_exits):
                del exits[kept:]
            for kept, heads in zip(saved[7], self.loop_heads):
                del heads[kept:]
        return out[0], out[1]

    def stmt_Assert(self, node: ast.Assert) -> None:
        """Past `assert x.is_contiguous()` (or a stride check) the code runs only where the
        check held: `x` is contiguous from here on, as in the `if` branch of the same test."""
        self.evaluate(node.test)
        if node.msg is not None:
            self.evaluate(node.msg)
        self.env = self.refine(node.test, self.env)[0]


    def layout_checked_names(self, test: ast.expr) -> list[tuple[str, bool]]:
        """Names whose layout `test` checks; True when the check is `is_contiguous()`."""
        if not self.program.index.queries_layout(test):
            return []
        return [(node.func.value.id, node.func.attr == "is_contiguous" and not node.keywords)
                for node in layout_reads(test)]

    def unit_size_test(self, test: ast.expr, env: Env) -> Optional[tuple[Size, bool]]:
        """The size that `test` tests to be 1, a name or a product of names, and on which
        side (True: where the test holds: `n == 1`, `x.shape[1] == 1`, `x.size(-1) <= 1`,
        `b < 2`, `1 == n`; False: where it fails: `n != 1`, `n > 1`, `n >= 2`), or None. A
        size is never negative, and the view of a tensor without elements never raises
        either: `< 2` counts as 1."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(left, ast.Constant):
            left, right = right, left
            op = {ast.Lt: ast.Gt(), ast.LtE: ast.GtE()}.get(type(op), op)
        if not (isinstance(right, ast.Constant) and type(right.value) is int):
            return None
        test_of = {(ast.Eq, 1): True, (ast.Lt, 2): True, (ast.LtE, 1): True,
                   (ast.NotEq, 1): False, (ast.Gt, 1): False, (ast.GtE, 2): False}
        when = test_of.get((type(op), right.value))
        if when is None or env is None or not _size_read(left):
            return None
        saved, self.env = self.env, env
        try:
            value = self.evaluate(left)
        finally:
            self.env = saved
        if value is OPAQUE and isinstance(left, ast.Name):
            return symbol(left.id), when  # an unknown name stands for itself in sizes
        size = value.size if isinstance(value, IntVal) else None
        return (size, when) if size is not None and size[0] == 1 and size[1] else None

    def rank_test(self, test: ast.expr, env: Env) -> Optional[tuple[Env, Env]]:
        """The environments where a test of a tensor's rank against a literal holds and where
        it fails (`x.ndim == 1`, `x.dim() > 2`, `len(x.shape) != 4`, either way round), or
        None for any other test."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        left, op, right = test.left, type(test.ops[0]), test.comparators[0]
        if isinstance(left, ast.Constant):
            left, right, op = right, left, _FLIPPED.get(op, op)
        if not (isinstance(right, ast.Constant) and type(right.value) is int and
                op in _RANK_SIDES and right.value >= 0):
            return None
        owner = _rank_owner(left)
        key = self.name_key(owner) if owner is not None else None
        value = env.get(key) if key is not None else None
        if value is OPAQUE:
            value = UNKNOWN_TENSOR  # what has a rank to test is taken for a tensor
        if not isinstance(value, Tensor):
            return None
        sides = []
        for side in _RANK_SIDES[op]:
            ranks = side(right.value)
            if isinstance(ranks, int):
                sides.append(dict(env, **{key: not_at_rank(value, ranks)}))
            elif ranks[1] is not None and ranks[1] < ranks[0]:
                sides.append(env)  # no rank is below 0: the side is not taken
            else:
                sides.append(dict(env, **{key: at_ranks(value, *ranks)}))
        return sides[0], sides[1]

    def size_equality(self, test: ast.expr, env: Env) -> Optional[dict]:
        """`name == size` (either way round), where the name's size is not known and the
        other side's is: the name's new value where the test holds (`assert x.shape[-1] ==
        in_features` gives `in_features` the size of x's last dim), or None."""
        if env is None or not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
                               isinstance(test.ops[0], ast.Eq)):
            return None
        saved, self.env = self.env, env
        try:
            for name, other in ((test.left, test.comparators[0]),
                                (test.comparators[0], test.left)):
                if not isinstance(name, ast.Name) or not _size_read(other):
                    continue
                current = env.get(name.id, OPAQUE)
                if current is not OPAQUE and not (isinstance(current, IntVal) and current.size
                                                  in (None, symbol(name.id))):
                    continue  # (a size named by the name alone is one no op tied to others)
                value = self.evaluate(other)
                if isinstance(value, IntVal) and value.size is not None:
                    return {name.id: value}
        finally:
            self.env = saved
        return None

    def refine(self, test: ast.expr, env: Env) -> tuple[Env, Env]:
        """Split the environment on layout checks: `if x.is_contiguous():` / `if not ...`."""
        if env is None:
            return None, None
        negate = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            negate, test = not negate, test.operand
        if isinstance(test, ast.BoolOp):
            # `a and b` holds only where both do, `a or b` fails only where both do; the other
            # side knows nothing: `if not x.is_contiguous() or off: x = x.contiguous()` may
            # take its body with x contiguous (off) or not.
            yes, no = env, env
            for operand in test.values:
                if isinstance(test.op, ast.And):
                    yes = self.refine(operand, yes)[0]
                else:
                    no = self.refine(operand, no)[1]
            # a stride test tells either side something the model does not decode
            yes, no = self.stride_tested(test, yes), self.stride_tested(test, no)
            return (no, yes) if negate else (yes, no)
        names = self.layout_checked_names(test)
        ranked = self.rank_test(test, env) if not names else None
        if ranked is not None:
            return (ranked[1], ranked[0]) if negate else ranked
        if not names:
            unit = self.unit_size_test(test, env)
            if unit is None:
                equal = self.size_equality(test, env)
                if equal is None:
                    return env, env
                holds = dict(env, **equal)  # `n == x.shape[-1]`: n is that size there
                return (env, holds) if negate else (holds, env)
            size, when = unit
            # `n == 1` holds on one side: n is 1 there (each name of a product `b * n` is),
            # on the other not (the product is not)
            one = dict(env)
            for name in size[1]:
                for key, value in one.items():
                    one[key] = bind_size(value, name, 1, self.size_owner_of(key))
                if name in env and env[name] is OPAQUE:
                    one[name] = IntVal(literal(1))  # the name, read later (`x.view(n, -1)`)
            one[AT_ONE] = Const(sizes_at_one(env) | set(size[1]))  # read as `x.size(0)` too
            above = size[1][0] if len(size[1]) == 1 else size_text(size)
            other = dict(env, **{ABOVE_ONE: Const(sizes_above_one(env) | {above})})
            return (other, one) if negate == when else (one, other)
        yes, no = dict(env), dict(env)
        contiguous_branch, other = (no, yes) if negate else (yes, no)
        undecided = undecided_strides(test, env.get)
        for name, exact in names:
            value = env.get(name)
            if not (isinstance(value, Tensor) or value is OPAQUE):
                continue
            if name in undecided:
                yes[name] = no[name] = _stride_tested(value)
            elif exact:
                # the dims stay where they were: the check holds at the sizes where those out
                # of memory order have size 1 (a size-1 last dim may have another stride)
                fresh = isinstance(value, Tensor) and value.kind is Kind.CONTIGUOUS and \
                    not value.stale_unit_strides
                known = value if isinstance(value, Tensor) else Tensor()
                contiguous_branch[name] = Tensor(Kind.CONTIGUOUS, known.geometry,
                                                 min_rank=known.min_rank,
                                                 assumed=known.assumed,
                                                 stale_unit_strides=not fresh)
            elif not any(read.func.attr == "stride" and read.func.value.id == name
                         for read in layout_reads(test)):  # `is_contiguous(memory_format=..)`
                contiguous_branch[name] = Tensor()  # a stride test its layout decides keeps it
        return yes, no

    def stride_tested(self, test: ast.expr, env: Env) -> Env:
        """`env` where the names whose strides `test` reads, undecided by their known layout,
        hold `_stride_tested` values."""
        if env is None or not self.program.index.queries_layout(test):
            return env  # no stride read, no name whose strides it tests
        names = undecided_strides(test, env.get)
        return dict(env, **{name: _stride_tested(env[name]) for name in names
                            if isinstance(env.get(name), Tensor) or env.get(name) is OPAQUE})


def _stride_tested(value) -> Tensor:
    """A tensor on either side of a test of its strides (`x.stride(-1) != 1`), which holds of
    layouts the model does not decode: unknown, and not the contiguous one a tensor that came
    in is taken for (`x.t()` where the test holds may be the dense weight `x` was the
    transpose of, and where it fails, `x` may be any layout the test let through). Its rank
    stays."""
    rank = value.rank if isinstance(value, Tensor) else None
    least = rank if rank is not None else value.min_rank if isinstance(value, Tensor) else 0
    return Tensor(Kind.UNKNOWN, min_rank=least, lost=True)


def _rank_owner(node: ast.expr) -> Optional[ast.expr]:
    """x of `x.ndim`, `x.dim()`, `x.ndimension()`, `len(x.shape)` or `len(x.size())`."""
    if isinstance(node, ast.Attribute) and node.attr == "ndim":
        return node.value
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("dim", "ndimension"):
            return node.func.value
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "len" and len(node.args) == 1:
        shape = node.args[0]
        if isinstance(shape, ast.Call) and not shape.args and not shape.keywords:
            shape = shape.func
            if not (isinstance(shape, ast.Attribute) and shape.attr == "size"):
                return None
        if isinstance(shape, ast.Attribute) and shape.attr in ("shape", "size"):
            return shape.value
    return None


def _size_read(node: ast.expr) -> bool:
    """A name, `x.shape[i]`, `x.size(i)` or `x.size()[i]` of a name: reads that record no sink."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Subscript):
        node = node.value
        if isinstance(node, ast.Call) and not node.args:
            node = node.func
        return isinstance(node, ast.Attribute) and node.attr in ("shape", "size") and \
            isinstance(node.value, ast.Name)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr == "size" and len(node.args) == 1 and isinstance(node.func.value, ast.Name)
