"""The runtime observer: what it records, where it attributes calls, and what it must not do."""
from __future__ import annotations

import gc
import inspect
import sys
import warnings
import weakref

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from contiglint.verify.tracer import Tracer  # noqa: E402


def line_of(marker: str) -> int:
    """Line number of the line in this file containing `marker` (not this call)."""
    source = inspect.getsource(sys.modules[__name__]).splitlines()
    hits = [i for i, text in enumerate(source, 1) if marker in text and "line_of(" not in text]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def ops(tracer, name):
    return [o for o in tracer.observations if o.op == name]


def test_transpose_then_view_records_error_at_user_line_and_reraises_same_object():
    x = torch.arange(12.).reshape(3, 4)
    caught = None
    with Tracer() as tracer:
        t = x.t()  # mark: transpose
        try:
            t.view(-1)  # mark: view
        except RuntimeError as error:
            caught = error
    assert caught is not None and "view size is not compatible" in str(caught)
    (view,) = ops(tracer, "Tensor.view")
    assert view.line == line_of("# mark: view") and view.file == __file__
    assert view.error == "RuntimeError" and view.error_message == str(caught)
    assert view.receiver.name == "self"
    assert view.receiver.layout.strides == (1, 4) and not view.receiver.layout.contiguous
    assert view.receiver.origin.line == line_of("# mark: transpose")
    (transpose,) = ops(tracer, "Tensor.t")
    assert transpose.result.strides == (1, 4) and transpose.direct


def test_results_unchanged_and_no_tensor_kept_alive():
    x = torch.randn(4, 6)
    expected = x.t().reshape(-1).clone()
    with Tracer() as tracer:
        y = x.t()
        got = y.reshape(-1)
        probe = weakref.ref(y)
    assert torch.equal(got, expected)
    del y
    gc.collect()
    assert probe() is None, "the tracer kept a reference to a tensor"
    assert tracer.observations  # still readable after exit


def test_copy_is_visible_from_storage_addresses():
    x = torch.arange(24.).reshape(2, 3, 4)
    with Tracer() as tracer:
        x.transpose(1, 2).reshape(2, 12)      # copies
        x.transpose(1, 2).reshape(2, 2, 2, 3)  # views
    copy, view = ops(tracer, "Tensor.reshape")
    assert copy.result.storage_ptr != copy.receiver.layout.storage_ptr
    assert view.result.storage_ptr == view.receiver.layout.storage_ptr


def test_layout_flags():
    base = torch.randn(2, 3, 8, 8)
    with Tracer() as tracer:
        base.contiguous(memory_format=torch.channels_last)
        torch.ones(3).expand(2, 3)
        torch.arange(5.).unfold(0, 2, 1)
        torch.arange(12.).reshape(3, 4)[:, 1:]
    cl = ops(tracer, "Tensor.contiguous")[0].result
    assert cl.channels_last and not cl.contiguous
    assert ops(tracer, "Tensor.expand")[0].result.overlapping
    assert ops(tracer, "Tensor.unfold")[0].result.overlapping
    sliced = ops(tracer, "Tensor.__getitem__")[0].result
    assert sliced.storage_offset == 1 and sliced.shares_storage and not sliced.overlapping


def test_only_chosen_files_and_metadata_skipped(tmp_path):
    helper = tmp_path / "helper_mod.py"
    helper.write_text("def f(t):\n    return t.t().contiguous()\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import helper_mod
        x = torch.randn(3, 4)
        with Tracer(files=[str(helper)]) as tracer:
            helper_mod.f(x)
            x.size(), x.dim(), x.shape  # metadata: never recorded
            x.t()                        # this file is not chosen
        assert [o.op for o in tracer.observations] == ["Tensor.t", "Tensor.contiguous"]
        assert {o.file for o in tracer.observations} == {str(helper)}
        assert [o.line for o in tracer.observations] == [2, 2]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("helper_mod", None)


def test_patches_are_restored_and_entries_recorded():
    before = (nn.Module.register_buffer, nn.Parameter.__dict__["__new__"], torch.jit.trace,
              torch.Tensor.data_ptr, torch.Tensor.untyped_storage)
    w = torch.randn(3, 4)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("table", w.t())  # mark: buffer

    with Tracer() as tracer:
        M()
        p = nn.Parameter(w.t())  # mark: parameter
        w.t().data_ptr()  # mark: data_ptr
        w.t().untyped_storage()  # mark: storage
    after = (nn.Module.register_buffer, nn.Parameter.__dict__["__new__"], torch.jit.trace,
             torch.Tensor.data_ptr, torch.Tensor.untyped_storage)
    assert before == after
    assert isinstance(p, nn.Parameter) and p.stride() == (1, 4)
    (buffer,) = ops(tracer, "nn.Module.register_buffer")
    assert buffer.line == line_of("# mark: buffer") and buffer.direct
    assert buffer.arguments[0].name == "tensor" and buffer.arguments[0].layout.strides == (1, 4)
    (param,) = [o for o in ops(tracer, "nn.Parameter") if o.direct]
    assert param.line == line_of("# mark: parameter") and param.arguments[0].name == "data"
    assert ops(tracer, "Tensor.data_ptr")[0].line == line_of("# mark: data_ptr")
    assert ops(tracer, "Tensor.untyped_storage")[0].line == line_of("# mark: storage")


def test_autograd_and_no_grad_unchanged():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x = torch.randn(5, 4)

    def step():
        model.zero_grad()
        out = model(x.t().t()).sum()
        out.backward()
        return out.detach(), [p.grad.clone() for p in model.parameters()]

    plain = step()
    with Tracer(indirect=True, modules=True) as tracer:
        traced = step()
        with torch.no_grad():
            y = model(x)
    assert torch.equal(plain[0], traced[0])
    assert all(torch.equal(a, b) for a, b in zip(plain[1], traced[1]))
    assert not y.requires_grad
    linear = [o for o in tracer.observations if o.op == "torch.nn.functional.linear"]
    assert linear and all(not o.direct for o in linear)
    assert any(o.kind == "module" and o.op == "Sequential.forward" for o in tracer.observations)


def test_indirect_error_attributed_to_user_line():
    param = nn.Parameter(torch.randn(3, 4).t())
    with Tracer(indirect=True) as tracer:
        with pytest.raises(RuntimeError):
            nn.utils.parameters_to_vector([param])  # mark: p2v
    raised = [o for o in tracer.observations if o.error]
    assert raised and raised[0].op == "Tensor.view" and not raised[0].direct
    assert raised[0].line == line_of("# mark: p2v")


def test_no_recursion_and_own_queries_not_observed():
    x = torch.randn(3, 4)
    with Tracer(ignore=()) as tracer:  # even metadata ops are recorded now
        x.t().contiguous()
    names = [o.op for o in tracer.observations]
    assert names == ["Tensor.t", "Tensor.contiguous"]


def test_jit_trace_recorded():
    def f(t):
        return t * 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with Tracer() as tracer:
            traced = torch.jit.trace(f, (torch.randn(3, 4).t(),))  # mark: trace
    assert torch.equal(traced(torch.ones(2, 2)), torch.full((2, 2), 2.0))
    (trace,) = ops(tracer, "torch.jit.trace")
    assert trace.line == line_of("# mark: trace")
    assert trace.arguments[0].layout.strides == (1, 4)


def test_torch_compile_passes_through():
    def g(t):
        return (t.t() + 1).reshape(-1)

    compiled = torch.compile(g, backend="eager")
    x = torch.randn(3, 4)
    with Tracer() as tracer:
        got = compiled(x)
    assert torch.equal(got, g(x))
    assert tracer.observations is not None  # compiled regions are opaque: anything or nothing


def test_reentering_is_refused_and_state_is_clean():
    tracer = Tracer()
    with tracer:
        with pytest.raises(RuntimeError):
            tracer.__enter__()
    assert not tracer.active
    with Tracer() as again:
        torch.randn(2).t()
    assert ops(again, "Tensor.t")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_device_recorded():
    with Tracer() as tracer:
        torch.randn(3, 4, device="cuda").t().contiguous()
    assert ops(tracer, "Tensor.contiguous")[0].result.device.startswith("cuda")


def test_select_records_only_chosen_ops_but_keeps_origins():
    x = torch.randn(3, 4)
    with Tracer(select=lambda op: op == "Tensor.view") as tracer:
        t = x.t()  # mark: selected origin
        with pytest.raises(RuntimeError):
            (t * 2).view(-1)
    (view,) = tracer.observations
    assert view.op == "Tensor.view" and view.error == "RuntimeError"
    assert view.receiver.origin.line == line_of("# mark: selected origin")
