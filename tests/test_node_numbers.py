"""One parent map and one node numbering, from the module's walk (layout/syntax/index.py):
the learned contracts, the rules and the flow pass read them, and no table keyed by a node's
`id()` outlives the tree it indexes."""
from __future__ import annotations

import ast
import gc
from pathlib import Path

from contiglint.layout.contracts.summary import summarize
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.rules.base import ParsedModule

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "contiglint" / "layout").rglob("*.py"))[:8] + \
    sorted((ROOT / "fixtures").rglob("*.py"))[:20]


def test_the_walk_gives_each_node_its_parent_as_ast_walk_does():
    for path in SAMPLES:
        tree = ast.parse(path.read_text())
        index = ModuleIndex(tree)
        expected = {id(child): node for node in ast.walk(tree)
                    for child in ast.iter_child_nodes(node)}
        module = ParsedModule(tree, index=index)
        assert index.parent(tree) is None and index.number(tree) == 0
        for number, node in enumerate(index.nodes):
            assert index.number(node) == number
            if node is not tree:
                assert index.parent(node) is expected[id(node)], (path, ast.dump(node)[:80])
                assert module.parent(node) is expected[id(node)]
        assert index.parent(ast.Name("x")) is None  # a node of no tree: no parent


TEXT = '''import torch


def reads(x):
    return x.data_ptr()


def identity(x):
    return x.data_ptr() == 0


def outer(x):
    def inner(y):
        return y.data_ptr()
    return inner(x)
'''


def test_summaries_of_new_trees_read_their_own_parents():
    """`x.data_ptr() == 0` compares an address (no requirement); `x.data_ptr()` reads memory.
    Each new tree of the same text, made after the last is freed (an id may come back),
    summarizes the same: the parent links are the tree's own."""
    for _ in range(5):
        tree = ast.parse(TEXT)
        summary = summarize(tree, "m", "m.py")
        assert set(summary.functions["m.reads"].required) == {"x"}
        assert summary.functions["m.identity"].required == {}
        assert set(summary.functions["m.outer.<locals>.inner"].required) == {"y"}
        del tree, summary
        gc.collect()

