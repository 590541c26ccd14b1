import ctypes
import hashlib

import torch


class ResultCache:
    def __init__(self):
        self.store = {}

    @staticmethod
    def key(t):
        raw = ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())  # hazard: CTG106
        return hashlib.sha1(raw).hexdigest()

    def get_or_compute(self, t, fn):
        k = self.key(t)
        if k not in self.store:
            self.store[k] = fn(t)
        return self.store[k]


def main():
    cache = ResultCache()
    bias = torch.randn(1, 6).expand(4, 6)
    out = cache.get_or_compute(bias, lambda t: t.sum())
    print(out)
