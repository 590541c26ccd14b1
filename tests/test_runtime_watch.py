"""watch() on real models: silent on clean ones, exactly the planted hazard on planted ones."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import contiglint.runtime as runtime  # noqa: E402
try:  # tests/ may or may not be a package
    from tests import runtime_models as models
except ImportError:
    import runtime_models as models  # noqa: E402


def train_step(model, x):
    model.zero_grad()
    loss = model(x).square().mean()
    loss.backward()
    return loss


def codes(report):
    return [(e.code, e.line) for e in report.entries]


def test_clean_cnn_and_attention_report_nothing():
    torch.manual_seed(0)
    with runtime.watch() as report:
        train_step(models.SmallCNN(), torch.randn(2, 3, 16, 16))
        train_step(models.MultiHeadAttention(), torch.randn(2, 5, 32))
        with torch.no_grad():
            models.SmallCNN().eval()(torch.randn(1, 3, 8, 8))
    assert report.entries == [], report.to_text()


def test_planted_cnn_copy_found_at_its_line_with_bytes_and_count():
    torch.manual_seed(0)
    model = models.SmallCNN(planted=True)
    with runtime.watch() as report:
        for _ in range(3):
            train_step(model, torch.randn(2, 3, 16, 16))
    line = models.marker_line(models.__file__, "cnn")
    (entry,) = report.entries
    assert (entry.code, entry.file, entry.line) == ("CTG201", models.__file__, line)
    assert entry.count == 3 and entry.bytes_copied == 3 * 2 * 64 * 4
    assert entry.op == "Tensor.reshape" and entry.strides == (64, 2, 1, 4)


def test_planted_attention_view_found_in_helper_with_callers_line():
    model = models.MultiHeadAttention(planted=True)
    with pytest.raises(RuntimeError, match="view size"):
        with runtime.watch() as report:
            train_step(model, torch.randn(2, 5, 32))
    (entry,) = report.entries
    assert (entry.code, entry.line) == ("CTG101", models.marker_line(models.__file__, "mha view"))
    assert [o.line for o in entry.origins] == [models.marker_line(models.__file__, "mha transpose")]
    assert report.script_error is None  # raised in user code: observed directly, not re-added


def test_torch_builtin_modules_are_not_blamed():
    mha = nn.MultiheadAttention(32, 4)  # batch_first=False transposes internally
    encoder = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, batch_first=True)
    with runtime.watch() as report:
        x = torch.randn(5, 2, 32)
        mha(x, x, x)[0].sum().backward()
        encoder(torch.randn(2, 5, 32)).sum().backward()
    assert report.entries == [], report.to_text()


def test_library_view_error_attributed_to_user_line():
    param = nn.Parameter(torch.randn(3, 4).t())
    with pytest.raises(RuntimeError):
        with runtime.watch() as report:
            nn.utils.parameters_to_vector([param])  # the user line
    (entry,) = report.entries
    assert entry.code == "CTG101" and entry.op == "view (inside a library call)"
    assert "parameters_to_vector" in open(__file__).read().splitlines()[entry.line - 1]


def test_noqa_on_reported_line_suppresses(tmp_path):
    import importlib.util
    module_path = tmp_path / "noqa_mod.py"
    module_path.write_text(
        "def run(x):\n"
        "    a = x.t().reshape(-1)  # noqa: CTG201\n"
        "    b = x.t().reshape(-1)  # noqa: CTG101\n"
        "    c = x.t().reshape(-1)  # noqa\n")
    spec = importlib.util.spec_from_file_location("noqa_mod", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with runtime.watch() as report:
        module.run(torch.randn(3, 4))
    assert codes(report) == [("CTG201", 3)]
    assert report.suppressed == 2


def test_report_sorted_by_file_and_line_and_json_shape():
    small, big = torch.randn(4, 4), torch.randn(64, 64)
    with runtime.watch() as report:
        big.t().reshape(-1)
        for _ in range(5):
            small.t().reshape(-1)
    first, second = report.entries  # by line, like the static findings; not by cost
    assert first.line < second.line
    assert first.bytes_copied == 64 * 64 * 4 and second.count == 5
    data = report.as_json()
    assert data["summary"]["entries"] == 2 and data["entries"][0]["code"] == "CTG201"
    assert "contiglint run: 2 layout hazard site(s)" in str(report)


def test_explicit_contiguous_is_opt_in():
    x = torch.randn(4, 4)
    with runtime.watch() as quiet:
        x.t().contiguous()
    with runtime.watch(explicit_copies=True) as loud:
        x.t().contiguous()
    assert quiet.entries == [] and [e.op for e in loud.entries] == ["Tensor.contiguous"]


def test_nothing_is_patched_when_off():
    before = (nn.Module.register_buffer, torch.jit.trace, nn.Parameter.__dict__["__new__"])
    watcher = runtime.watch()
    assert (nn.Module.register_buffer, torch.jit.trace) == before[:2]
    with watcher:
        assert nn.Module.register_buffer is not before[0]
    assert (nn.Module.register_buffer, torch.jit.trace, nn.Parameter.__dict__["__new__"]) == before
    assert not torch.overrides._get_current_function_mode_stack()


def test_compiled_function_runs_and_is_opaque():
    """A torch.compile'd function's ops run as a compiled graph, not through Python dispatch:
    the watcher sees none of them (the limit contiglint.runtime documents) and does not break
    it, while the same function run eagerly reports the copy its reshape makes."""
    def head(t):
        return t.t().reshape(-1)

    compiled = torch.compile(head, backend="eager")
    x = torch.randn(4, 4)
    with runtime.watch() as eager:
        expected = head(x)
    with runtime.watch() as report:
        got = compiled(x)
    assert torch.equal(got, expected) and torch.equal(got, x.t().reshape(-1))
    assert codes(eager) == [("CTG201", head.__code__.co_firstlineno + 1)]
    assert codes(report) == []


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_device_move_reported_where_its_copy_is_viewed():
    w = torch.randn(3, 3, 4, 8).permute(3, 2, 0, 1)
    with runtime.watch() as report:
        moved = w.cuda()
        moved.sum()                                # honours strides: nothing
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            moved.view(8, -1)
    assert sorted((e.code, e.count) for e in report.entries) == [("CTG101", 3), ("CTG104", 1)]


def test_save_reports_a_lone_view_but_not_views_sharing_one_flat_buffer(tmp_path):
    flat = torch.randn(100)
    table = torch.randn(1000, 4)
    with runtime.watch() as report:
        torch.save({"a": flat[:50], "b": flat[50:]}, tmp_path / "flat.pt")   # deliberate
        torch.save(table.clone(), tmp_path / "whole.pt")
        torch.save(table[:3], tmp_path / "head.pt")
    assert [(e.code, e.shape) for e in report.entries] == [("CTG112", (3, 4))]


def test_same_device_copy_keeps_strides_but_a_cast_is_not_a_move():
    permuted = torch.randn(2, 3, 4).permute(2, 0, 1)
    with runtime.watch() as report:
        cast = permuted.to(torch.float64)          # a cast, not a device move
        itself = permuted.to("cpu")                # no copy: returns the tensor itself
        copy = permuted.to("cpu", copy=True)       # a stride-keeping copy
        views = [_raises_on_view(cast), _raises_on_view(itself), _raises_on_view(copy)]
    # the move is no hazard by itself; code that needs row-major memory on its copy is CTG104
    assert sorted((e.code, e.count) for e in report.entries) == [("CTG101", 3), ("CTG104", 1)]
    assert {e.op for e in report.entries} == {"Tensor.view"} and views == [True] * 3


def _raises_on_view(tensor) -> bool:
    try:
        tensor.view(-1)
    except RuntimeError as error:
        return "view size is not compatible" in str(error)
    return False
