import torch


class PrefixCache:
    """One prefix state used by every sequence of the decoding batch."""

    def __init__(self, dim):
        self.state = torch.zeros(1, dim)

    def batched(self, batch):
        return self.state.expand(batch, -1)

    def update(self, new_states):
        view = self.batched(new_states.size(0))
        view.copy_(new_states)  # hazard: CTG108
        return view


def main():
    cache = PrefixCache(8)
    print(cache.update(torch.randn(4, 8)).shape)
