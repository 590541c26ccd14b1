"""Loops in the flow pass: `for` and `while` bodies run until the environment settles (at most
`LOOP_ROUNDS` rounds), with `break` and `continue` joined where they lead."""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.layout.flow.environments import LOOP_ROUNDS, join_envs
from contiglint.layout.model.sizes import literal
from contiglint.layout.model.values import IntVal, Seq


class LoopMixin:
    """The loop statements of `Frame` (frame.py)."""

    def stmt_While(self, node: ast.While) -> None:
        self.evaluate(node.test)
        self.sinks.layout_branch(node.test)
        self.loop(node, lambda: None)

    def stmt_For(self, node: ast.For) -> None:
        iterated = self.evaluate(node.iter)
        count = self.literal_range(node)
        if count is not None:
            self.loops.append(node)
            splits = self.splits
            for index in range(count):  # `for _ in range(2)`: two transposes cancel out
                if self.env is None:
                    break
                self.splits = dict(splits)
                self.assign(node.target, IntVal(literal(index)), None)
                self.run_block(node.body)
            self.loops.pop()
            self.splits = splits
            self.run_block(node.orelse)
            return
        items = iterated.items if isinstance(iterated, Seq) else None
        if items is not None and 0 < len(items) <= 8 and not self.jumps(node):
            self.loops.append(node)  # `for block in self.blocks:` each block in its turn
            splits = self.splits
            for item in items:
                if self.env is None:
                    break
                self.splits = dict(splits)
                self.assign(node.target, item, None)
                self.run_block(node.body)
            self.loops.pop()
            self.splits = splits
            self.run_block(node.orelse)
            return
        element = self.iterate(iterated)
        self.loop(node, lambda: self.assign(node.target, element, None))

    @staticmethod
    def jumps(node: ast.For) -> bool:
        return any(isinstance(n, (ast.Break, ast.Continue, ast.Yield, ast.Try))
                   for n in ast.walk(node))

    def literal_range(self, node: ast.For) -> Optional[int]:
        """n for `for i in range(n)` where n is known and small (a literal, or a constructor
        argument such as `self.depth`), and the body has no break/continue/yield."""
        call = node.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "range" and len(call.args) == 1 and not call.keywords):
            return None
        count = self.evaluate(call.args[0])
        if not (isinstance(count, IntVal) and count.size is not None and not count.size[1]
                and 0 <= count.size[0] <= 8):
            return None
        jumps = (ast.Break, ast.Continue, ast.Yield, ast.Try)
        if any(isinstance(n, jumps) for n in ast.walk(node)):
            return None
        return count.size[0]

    stmt_AsyncFor = stmt_For

    def loop(self, node, bind) -> None:
        entry = self.env
        current = dict(entry)
        self.loops.append(node)
        self.loop_exits.append([])
        self.loop_heads.append([])
        splits = self.splits
        for _ in range(LOOP_ROUNDS):
            self.env = dict(current)
            self.splits = dict(splits)  # what one round learns of conditions stays in it
            bind()
            self.run_block(node.body)
            heads = [self.env] + self.loop_heads[-1]
            self.loop_heads[-1] = []
            merged = current
            for head in heads:
                merged = join_envs(merged, head)
            if merged == current:
                break
            current = merged
        exits = self.loop_exits.pop()
        self.loop_heads.pop()
        self.loops.pop()
        self.env = current
        self.splits = splits
        self.run_block(node.orelse)
        for env in exits:
            self.env = join_envs(self.env, env)

    def stmt_Break(self, node: ast.Break) -> None:
        if self.loop_exits:
            self.loop_exits[-1].append(self.env)
        self.env = None

    def stmt_Continue(self, node: ast.Continue) -> None:
        if self.loop_heads:
            self.loop_heads[-1].append(self.env)
        self.env = None
