"""A tiny stand-in for ``triton.jit`` / ``tl``.

As with real Triton, a torch.Tensor argument is lowered to a bare pointer to
its first element (``data_ptr()``): sizes and strides are NOT passed.  The
kernel body addresses memory as ``ptr + offsets`` exactly as written, so if the
launcher forgets to pass strides (or to call .contiguous()), a strided view is
read/written as if it were a dense row-major block.
"""
import torch

from .raw import _flat_storage


class Pointer:
    def __init__(self, flat, offset):
        self.flat, self.offset = flat, offset
        self.dtype = flat.dtype

    def __add__(self, off):
        if isinstance(off, torch.Tensor):
            return PointerBlock(self, off)
        return Pointer(self.flat, self.offset + int(off))

    __radd__ = __add__


class PointerBlock:
    def __init__(self, ptr, offs):
        self.ptr, self.offs = ptr, offs.long()


class _Lang:
    float32 = torch.float32
    constexpr = int

    def __init__(self):
        self._pid = (0, 0, 0)

    def program_id(self, axis):
        return self._pid[axis]

    def arange(self, start, end):
        return torch.arange(start, end)

    def load(self, block, mask=None, other=0.0):
        idx = block.ptr.offset + block.offs
        flat = block.ptr.flat
        valid = (idx >= 0) & (idx < flat.numel())
        if mask is not None:
            valid = valid & mask
        out = torch.full(idx.shape, other, dtype=flat.dtype)
        out[valid] = flat[idx[valid]]
        return out

    def store(self, block, value, mask=None):
        idx = block.ptr.offset + block.offs
        flat = block.ptr.flat
        valid = (idx >= 0) & (idx < flat.numel())
        if mask is not None:
            valid = valid & mask
        value = torch.as_tensor(value, dtype=flat.dtype).expand(idx.shape)
        flat[idx[valid]] = value[valid]

    @staticmethod
    def cdiv(a, b):
        return (a + b - 1) // b

    sum = staticmethod(lambda x, axis=None: x.sum(dim=axis) if axis is not None else x.sum())
    max = staticmethod(lambda x, axis=None: x.amax(dim=axis) if axis is not None else x.max())
    exp = staticmethod(torch.exp)
    sqrt = staticmethod(torch.sqrt)
    where = staticmethod(torch.where)
    sigmoid = staticmethod(torch.sigmoid)
    cos = staticmethod(torch.cos)
    sin = staticmethod(torch.sin)


tl = _Lang()


def _lower(arg):
    if isinstance(arg, torch.Tensor):
        # what the Triton launcher does: tensor -> tensor.data_ptr()
        return Pointer(_flat_storage(arg), arg.storage_offset())
    return arg


class JITFunction:
    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            g = grid(kwargs) if callable(grid) else grid
            g = tuple(g) + (1,) * (3 - len(g))
            largs = [_lower(a) for a in args]
            lkw = {k: _lower(v) for k, v in kwargs.items()}
            for z in range(g[2]):
                for y in range(g[1]):
                    for x in range(g[0]):
                        tl._pid = (x, y, z)
                        self.fn(*largs, **lkw)
        return launch


def jit(fn):
    return JITFunction(fn)


class triton:  # namespace so kernels can write ``@triton.jit``
    jit = staticmethod(jit)
    cdiv = staticmethod(_Lang.cdiv)

    @staticmethod
    def next_power_of_2(n):
        p = 1
        while p < n:
            p *= 2
        return p
