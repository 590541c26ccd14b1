"""The sizes the one-dim factories give and the layouts meshgrid gives, held against torch: each
program runs under torch, and the model's geometry of every name it binds is built at the
program's literal sizes (witness_tensors.materialize) and compared with the tensor torch made
(its sizes; its strides where a dim has two or more elements)."""
from __future__ import annotations

import ast

import pytest
import torch

from contiglint.layout.explain.observe import Observer
from contiglint.layout.flow.program import analyze_module
from contiglint.layout.model.witness_tensors import materialize
from contiglint.source import SourceMap


def claims(source: str) -> dict[str, object]:
    """The model's tensor of each name the last statement of `f` returns, by name."""
    source = "import torch\n" + source
    tree = ast.parse(source)
    observer = Observer()
    analyze_module(tree, SourceMap(source), observer=observer)
    returned = [node for node in ast.walk(tree) if isinstance(node, ast.Return)][-1]
    return {name.id: observer.tensor(name) for name in returned.value.elts}


def check(source: str) -> None:
    namespace = {"torch": torch}
    exec(compile(source, "<facts>", "exec"), namespace)
    real = dict(zip((n.id for n in ast.parse(source).body[-1].body[-1].value.elts),
                    namespace["f"]()))
    for name, tensor in claims(source).items():
        geometry = tensor.geometry
        assert geometry is not None, f"{name}: no geometry"
        sizes = [size[0] if size is not None and not size[1] else None
                 for size in geometry.sizes]
        assert sizes == list(real[name].shape), (name, geometry.sizes, real[name].shape)
        strides = materialize(geometry, sizes)
        assert strides is not None, name
        assert [s for s, n in zip(strides, sizes) if n > 1] == \
            [s for s, n in zip(real[name].stride(), sizes) if n > 1], (name, strides)


@pytest.mark.parametrize("calls", [
    "torch.arange(5), torch.arange(2, 9, 3), torch.arange(7, 2, -2), torch.arange(0, 1, 0.25)",
    "torch.arange(3.0), torch.arange(-2, 2), torch.randperm(4), torch.arange(1)",
    "torch.linspace(0, 1, 6), torch.logspace(0, 2, steps=3), torch.arange(0.5, 3, 0.5)",
])
def test_one_dim_factories_have_the_length_their_arguments_give(calls):
    names = ", ".join(f"t{i}" for i in range(calls.count("torch.")))
    check(f"def f():\n    {names} = {calls}\n    return {names}\n")


@pytest.mark.parametrize("calls", [
    "torch.eye(3), torch.eye(2, 5), torch.eye(4, m=1), torch.eye(n=2)",
    "torch.tril_indices(3, 3), torch.triu_indices(4, 2, 1), torch.eye(1, dtype=torch.int64)",
])
def test_two_dim_factories_have_the_sizes_their_arguments_give(calls):
    names = ", ".join(f"t{i}" for i in range(calls.count("torch.") - calls.count("torch.int")))
    check(f"def f():\n    {names} = {calls}\n    return {names}\n")


def test_eye_of_one_size_is_square():
    source = "def f(n):\n    a = torch.eye(n)\n    return a,\n"
    (a,) = claims(source).values()
    assert a.geometry.sizes[0] == a.geometry.sizes[1] is not None
    assert torch.eye(5).shape == (5, 5)


@pytest.mark.parametrize("sizes", [(3, 4), (3, 1), (1, 4), (2, 3, 4), (4, 1, 2)])
@pytest.mark.parametrize("indexing", ["ij", "xy", None])
def test_meshgrid_expands_each_input_along_the_other_dims(sizes, indexing):
    inputs = ", ".join(f"torch.arange({n})" for n in sizes)
    given = f", indexing={indexing!r}" if indexing else ""
    names = ", ".join(f"g{i}" for i in range(len(sizes)))
    check(f"def f():\n    {names} = torch.meshgrid({inputs}{given})\n    return {names}\n")


def test_an_unknown_indexing_leaves_the_grids_unknown():
    source = "def f(mode):\n    a, b = torch.meshgrid(torch.arange(3), torch.arange(4), " \
             "indexing=mode)\n    return a, b\n"
    assert all(t.geometry is None and t.maybe for t in claims(source).values())
