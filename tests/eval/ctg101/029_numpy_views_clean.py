import numpy as np
import torch


def pack_records(arr: np.ndarray) -> np.ndarray:
    # numpy view: reinterpret the float32 bits as int32 (same item size)
    return arr.T.view(np.int32)


def batchify(arr: np.ndarray):
    b = arr.view()
    b.shape = (2, -1)
    return b


def main():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    bits = pack_records(a)
    batch = batchify(np.ascontiguousarray(a))
    t = torch.as_tensor(batch)
    assert t.view(-1).shape == (12,) and bits.shape == (4, 3)
