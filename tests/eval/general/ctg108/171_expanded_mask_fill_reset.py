import torch


class StreamingMask:
    """Keeps a per-sample validity mask over time steps."""

    def __init__(self, batch, steps):
        base = torch.ones(batch, 1, dtype=torch.bool)
        self.mask = base.expand(batch, steps)

    def reset(self):
        self.mask.fill_(False)  # hazard: CTG108

    def valid_fraction(self):
        return self.mask.float().mean().item()


def main():
    m = StreamingMask(3, 10)
    print(m.valid_fraction())
    m.reset()
    print(m.valid_fraction())
