"""Which training steps the watch looks at: all of them until they stop teaching it anything new.

Layout hazards depend on shapes, strides and code paths, and a training loop repeats the same
ones step after step. So the watch looks at every call of every step while the set of call
signatures (site, op, and the shapes and strides of the tensors it got) keeps growing. Once no
step has added a signature for `stable_steps` steps in a row it samples: it looks at one step
in `every`, and at any step whose outermost module gets inputs of a shape, stride, dtype or
device it has not seen (a new batch size, sequence length, resolution or layout). A looked-at
step that adds a signature (a code path not seen before) turns watching every step back on
until the signatures are stable again. Steps not looked at cost one hook call per module call.
`full=True` looks at every step.

A step ends at each `optimizer.step()`; a program that never calls one (inference, a loop of
`model(x)` calls) ends a step whenever its outermost `nn.Module` call returns. Counts in the
report are of the steps looked at; `summary()` says which those were.
"""
from __future__ import annotations

from typing import Any, Optional


class Sampler:
    """Step bookkeeping for one watch (kept across re-entries of the same watch)."""

    def __init__(self, full: bool = False, stable_steps: int = 5, every: int = 20) -> None:
        if stable_steps < 1 or every < 1:
            raise ValueError("stable_steps and every must be at least 1")
        self.full = full
        self.stable_steps = stable_steps
        self.every = every
        self.steps = 0  # completed steps
        self.watched_steps = 0  # completed steps that were looked at (wholly or from a point)
        self.new_input_steps = 0  # of those, looked at because of new input shapes
        self.sampling_from: Optional[int] = None  # the step where sampling (last) began
        self.watching = True  # is the current step looked at?
        self.optimizer_steps = False  # has the program stepped an optimizer?
        self._stable = 0  # steps in a row that added no signature
        self._grew = False  # the current step added a signature
        self._signatures: set = set()
        self._inputs: set = set()
        self._depth = 0  # nesting of nn.Module calls
        self._forward_ended_step = False  # the last step ended when a forward returned
        self._last_watched = False  # the last step ended was looked at
        self._before_last_step: tuple = (0, None, True, False)  # to undo that step's end

    # -- what the watch saw ------------------------------------------------------------------
    def observed(self, signature: Any) -> None:
        if signature not in self._signatures:
            if len(self._signatures) < 100_000:
                self._signatures.add(signature)
            self._grew = True

    def module_entered(self, inputs: tuple, kwargs: Optional[dict]) -> bool:
        """An nn.Module call begins; True when it is an outermost call with inputs of a new
        kind that starts watching the rest of a step that was not looked at."""
        self._depth += 1
        if self._depth != 1:
            return False
        key = _input_signature(inputs, kwargs)
        if key in self._inputs:
            return False
        if len(self._inputs) < 10_000:
            self._inputs.add(key)
        if self.watching:
            return False
        self.watching = True
        self.new_input_steps += 1
        return True

    def module_returned(self) -> bool:
        """An nn.Module call ends; True when that ends a step (see the module docstring)."""
        self._depth = max(0, self._depth - 1)
        ends = self._depth == 0 and not self.optimizer_steps
        self._forward_ended_step = ends
        return ends

    def optimizer_stepped(self) -> None:
        if not self.optimizer_steps and self._forward_ended_step:
            # the first training step's forward was counted as a step of its own: from now
            # on the optimizer step closes it
            self.steps -= 1
            self.watched_steps -= self._last_watched
            self._stable, self.sampling_from, self.watching, grew = self._before_last_step
            self._grew = self._grew or grew
        self.optimizer_steps = True

    # -- steps -------------------------------------------------------------------------------
    def step_ended(self) -> bool:
        """Close the current step; returns whether the next one is looked at."""
        self._before_last_step = (self._stable, self.sampling_from, self.watching, self._grew)
        self.steps += 1
        self._last_watched = self.watching
        if self.watching:
            self.watched_steps += 1
            if self._grew:
                self._stable = 0
                if self.sampling_from is not None and not self.full:
                    self.sampling_from = None  # a new code path: watch every step again
            else:
                self._stable += 1
        self._grew = False
        if self.full:
            return True
        if self.sampling_from is None:
            if self._stable < self.stable_steps:
                self.watching = True
                return True
            self.sampling_from = self.steps
        self.watching = (self.steps - self.sampling_from) % self.every == self.every - 1
        return self.watching

    def summary(self) -> dict:
        return {"mode": "full" if self.full else "sampled", "steps": self.steps,
                "watched_steps": self.watched_steps, "new_input_steps": self.new_input_steps,
                "sampling_from_step": self.sampling_from, "stable_steps": self.stable_steps,
                "every": self.every, "signatures": len(self._signatures),
                "step_boundary": "optimizer.step()" if self.optimizer_steps
                else "outermost nn.Module call"}


def describe(summary: Optional[dict]) -> str:
    """One line for the text report: what was looked at."""
    if not summary:
        return ""
    steps, watched = summary["steps"], summary["watched_steps"]
    unit = f"steps (a step ends at each {summary['step_boundary']})"
    if summary["mode"] == "full" or summary["sampling_from_step"] is None:
        return f"watched every call of all {steps} {unit}"
    extra = f", {summary['new_input_steps']} for new input shapes" \
        if summary["new_input_steps"] else ""
    return (f"watched every call of {watched} of {steps} {unit}: every step until "
            f"{summary['signatures']} call signatures were stable for "
            f"{summary['stable_steps']} steps, then 1 step in {summary['every']}{extra}; "
            f"counts cover the watched steps (`--full` watches every step)")


def _input_signature(inputs: tuple, kwargs: Optional[dict]) -> tuple:
    import torch  # only once a watch runs: the report (and this module) load without torch

    values = list(inputs) + (list(kwargs.values()) if kwargs else [])
    key = []
    tensor = torch._C.TensorBase
    with torch._C.DisableTorchFunction():
        for value in values:
            if isinstance(value, (list, tuple)):
                key.append(tuple(_layout_key(item, tensor) for item in value[:16]))
            else:
                key.append(_layout_key(value, tensor))
    return tuple(key)


def _layout_key(value: Any, tensor: type) -> Any:
    if isinstance(value, tensor):
        try:
            return (tuple(value.shape), value.stride(), value.dtype, value.device)
        except Exception:  # noqa: BLE001 - sparse, nested: shape is enough
            return ("tensor", tuple(getattr(value, "shape", ())))
    return type(value)
