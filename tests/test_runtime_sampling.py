"""Sampling in watch mode: every step until the call signatures are stable, then sampled steps,
steps with new input shapes and steps on new code paths; `full=True` watches every step; the
torch function mode stack is left as it was found."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import contiglint.runtime as runtime  # noqa: E402
from tests.clitools import environment, write  # noqa: E402


class Net(nn.Module):
    """A linear layer whose output goes through an implicit copy (CTG201) when `copy_from`
    says so for this step and input."""

    def __init__(self, copy_from=lambda step, x: True):
        super().__init__()
        self.linear = nn.Linear(6, 6)
        self.copy_from = copy_from
        self.step = 0

    def forward(self, x):
        self.step += 1
        y = self.linear(x)
        if self.copy_from(self.step, x):
            y = y.t().reshape(-1)  # the planted copy
        return y.sum()


def train(model, optimizer, steps, rows=4):
    for _ in range(steps):
        optimizer.zero_grad()
        model(torch.randn(rows, 6)).backward()
        optimizer.step()


def setup(**kwargs):
    torch.manual_seed(0)
    model = Net(**kwargs)
    return model, torch.optim.SGD(model.parameters(), 0.1)


def copies(report):
    return sum(e.count for e in report.entries if e.code == "CTG201")


def test_default_mode_watches_every_step_until_stable_then_one_in_k():
    model, optimizer = setup()
    with runtime.watch(stable_steps=3, sample_every=10) as report:
        train(model, optimizer, 40)
    sampling = report.sampling
    assert sampling["steps"] == 40 and sampling["step_boundary"] == "optimizer.step()"
    # step 1 adds signatures, steps 2-4 do not: sampling from step 4, then steps 14, 24, 34
    assert sampling["sampling_from_step"] == 4
    assert sampling["watched_steps"] == 4 + 3
    assert copies(report) == 7
    assert "7 of 40 steps" in report.to_text() and "1 step in 10" in report.to_text()


def test_full_mode_watches_every_step():
    model, optimizer = setup()
    with runtime.watch(full=True) as report:
        train(model, optimizer, 40)
    assert report.sampling["watched_steps"] == 40 and copies(report) == 40
    assert "1 step in" not in report.to_text()


def test_new_input_shape_after_warm_up_is_watched():
    model, optimizer = setup(copy_from=lambda step, x: x.shape[0] == 5)
    with runtime.watch(stable_steps=3, sample_every=1000) as report:
        train(model, optimizer, 20)  # 4 rows: no copy, and sampling begins
        assert report.entries == []
        train(model, optimizer, 1, rows=5)  # a new batch size: that step is watched
    assert copies(report) == 1
    assert report.sampling["new_input_steps"] == 1


def test_new_code_path_at_a_sampled_step_turns_full_watching_back_on():
    model, optimizer = setup(copy_from=lambda step, x: step > 20)
    with runtime.watch(stable_steps=3, sample_every=10) as report:
        train(model, optimizer, 40)
    # sampling from step 4 watches step 14, then 24: there the copy is new, so steps 25-27
    # are watched until stable again (sampling from 27: step 37 watched too)
    assert copies(report) == 5
    assert report.sampling["sampling_from_step"] == 27


def test_entering_the_same_watch_again_continues_sampling():
    model, optimizer = setup()
    watch = runtime.watch(stable_steps=3, sample_every=10)
    with watch:
        train(model, optimizer, 10)
    with watch as report:
        train(model, optimizer, 10)
    assert report.sampling["steps"] == 20 and report.sampling["watched_steps"] == 4 + 1
    assert copies(report) == 5


def test_without_an_optimizer_a_step_is_an_outermost_module_call():
    model, _ = setup()
    with runtime.watch(stable_steps=2, sample_every=5) as report:
        with torch.no_grad():
            for _ in range(12):
                model(torch.randn(4, 6))
    assert report.sampling["steps"] == 12
    assert report.sampling["step_boundary"] == "outermost nn.Module call"
    assert report.sampling["watched_steps"] == 3 + 1  # steps 1-3, then 8 (and 13, 18...)
    assert copies(report) == report.sampling["watched_steps"]


def only_the_watch_on_the_mode_stack(depth):
    """Above the modes that were there before the watch, at most the watch's own."""
    above = [torch._C._get_function_stack_at(index)
             for index in range(depth, torch._C._len_torch_function_stack())]
    return len(above) <= 1 and all(type(mode).__module__ == "contiglint.verify.tracer"
                                   for mode in above)


def test_the_mode_stack_is_left_as_found_with_other_modes_around_step_ends():
    depth = torch._C._len_torch_function_stack()
    model, optimizer = setup()
    with runtime.watch(stable_steps=2, sample_every=3) as report:
        train(model, optimizer, 6)  # sampling: the watch's mode is off the stack now
        with torch.device("cpu"):  # another mode while paused: resuming would misnest it
            train(model, optimizer, 4, rows=5)
            assert torch.empty(1).device.type == "cpu"
        with torch.device("cpu"):  # and one around the step ends of a watched stretch
            train(model, optimizer, 4)
        train(model, optimizer, 6)
        optimizer.zero_grad()
        with torch.device("cpu"):  # a new shape starts watching inside another mode,
            loss = model(torch.randn(7, 6))  # which ends before the step does
        assert only_the_watch_on_the_mode_stack(depth)
        loss.backward()
        optimizer.step()
        train(model, optimizer, 6)
        assert only_the_watch_on_the_mode_stack(depth)
    assert torch._C._len_torch_function_stack() == depth
    assert copies(report) >= 1
    with torch.device("meta"):  # torch's own modes still work after the watch
        assert torch.empty(1).device.type == "meta"
    assert torch.empty(1).device.type == "cpu"


SCRIPT = """\
import torch
from torch import nn

model = nn.Linear(6, 6)
optimizer = torch.optim.SGD(model.parameters(), 0.1)
for _ in range(40):
    optimizer.zero_grad()
    model(torch.randn(4, 6)).t().reshape(-1).sum().backward()
    optimizer.step()
"""


@pytest.mark.parametrize("flag, watched", [([], 6 + 1), (["--full"], 40)])
def test_cli_full_option_and_the_report_of_what_was_sampled(tmp_path, flag, watched):
    write(tmp_path, "train.py", SCRIPT)
    done = subprocess.run([sys.executable, "-m", "contiglint", "run", "--format", "json",
                           *flag, "train.py"], cwd=tmp_path, capture_output=True, text=True,
                          env=environment(), timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stderr[done.stderr.index("{"):])
    assert data["sampling"]["mode"] == ("full" if flag else "sampled")
    assert data["sampling"]["steps"] == 40 and data["sampling"]["watched_steps"] == watched
    assert [e["count"] for e in data["entries"]] == [watched]
    text = subprocess.run([sys.executable, "-m", "contiglint", "run", *flag, "train.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=environment(),
                          timeout=300).stderr
    assert ("1 step in 20" in text) == (not flag), text


def fused(x):
    assert x.is_contiguous(), "x must be contiguous"  # a guard: its contract is learned
    return x * 2


class Boundaries(nn.Module):
    """Passes its activations to a guarded kernel wrapper (transposed when `transpose` says so
    for the input) and, at one step, all-reduces a transposed tensor."""

    def __init__(self, transpose, reduce_at):
        super().__init__()
        self.linear = nn.Linear(6, 6)
        self.transpose, self.reduce_at, self.step = transpose, reduce_at, 0

    def forward(self, x):
        import torch.distributed as dist

        self.step += 1
        y = self.linear(x)
        try:
            y = fused(y.t() if self.transpose(x) else y)
        except AssertionError:
            pass
        if self.step == self.reduce_at:
            dist.all_reduce(torch.randn(4, 6).t())
        return y.sum()


def test_boundary_entry_points_are_watched_in_every_step_and_guards_at_new_inputs(tmp_path):
    """Collectives (like safetensors saves and Triton launches) are entry points, observed
    in steps that sampling skips; a guard is an op, part of the call signature, observed in
    the steps sampling watches, among them every step with inputs of a new shape."""
    import torch.distributed as dist

    torch.manual_seed(0)
    model = Boundaries(transpose=lambda x: x.shape[0] == 5, reduce_at=15)
    optimizer = torch.optim.SGD(model.parameters(), 0.1)
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0,
                            world_size=1)
    try:
        with runtime.watch(stable_steps=3, sample_every=1000) as report:
            train(model, optimizer, 20)  # sampling from step 4: step 15 is not watched
            train(model, optimizer, 1, rows=5)  # a new batch size: watched, the guard fails
    finally:
        dist.destroy_process_group()
    # steps 1-4 and 21 watched (the new shapes of step 21 turn full watching back on)
    assert report.sampling["steps"] == 21 and report.sampling["watched_steps"] == 5
    counts = {e.code: e.count for e in report.entries}
    assert counts.get("CTG107") == 1  # the all_reduce of step 15
    assert counts.get("CTG114") == 1  # the guard at the step with 5 rows
