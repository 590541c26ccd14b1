"""Training monitor keeps the first feature column of every step's activations."""
import torch
import torch.nn as nn


class ActivationMonitor:
    def __init__(self):
        self.history = []

    def record(self, acts):
        self.history.append(acts.select(1, 0))  # hazard: CTG102


def train_step(model, monitor, x):
    h = model(x)
    monitor.record(h)
    return h.pow(2).mean()


def main():
    model = nn.Linear(6, 12)
    mon = ActivationMonitor()
    for _ in range(3):
        train_step(model, mon, torch.randn(4, 6))
    assert len(mon.history) == 3 and mon.history[0].shape == (4,)


if __name__ == "__main__":
    main()
