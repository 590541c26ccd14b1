"""Raw-memory emulation of native kernels.

A CUDA/C++ kernel that receives ``t.data_ptr()`` plus ``t.numel()`` walks the
memory as one dense row-major block and ignores ``t.stride()``.  The helpers
below do exactly that on CPU, through the tensor's untyped storage starting at
``t.storage_offset()`` (equivalently ``t.data_ptr()``), so a non-contiguous view
yields the values a real kernel would read.
"""
import torch


def _flat_storage(t):
    """The whole storage of ``t`` as a flat tensor of t.dtype (no strides)."""
    s = t.untyped_storage()
    n = s.nbytes() // t.element_size()
    flat = torch.empty(0, dtype=t.dtype, device=t.device)
    flat.set_(s, 0, (n,), (1,))
    return flat


def data_ptr_of(t):
    return t.data_ptr()


def read_dense(t, numel=None, shape=None):
    """Read ``numel`` elements starting at ``t.data_ptr()`` as a dense block.

    Exactly what ``const T* p = x.data_ptr<T>(); p[i]`` does for i < numel.
    Memory past the end of the allocation reads as zeros (garbage in reality).
    """
    numel = t.numel() if numel is None else numel
    flat = _flat_storage(t)
    off = t.storage_offset()
    avail = max(0, min(numel, flat.numel() - off))
    out = torch.zeros(numel, dtype=t.dtype, device=t.device)
    if avail:
        out[:avail] = flat[off:off + avail]
    return out.reshape(t.shape if shape is None else shape)


def write_dense(t, values):
    """Write ``values`` (any layout) into memory at ``t.data_ptr()`` densely,
    the way a kernel writes ``out_ptr[i]`` for i < numel."""
    flat = _flat_storage(t)
    off = t.storage_offset()
    v = values.reshape(-1).to(t.dtype)
    n = max(0, min(v.numel(), flat.numel() - off))
    flat[off:off + n] = v[:n]


def torch_check(cond, msg):
    """TORCH_CHECK(cond, msg) -> c10::Error surfaces in Python as RuntimeError."""
    if not cond:
        raise RuntimeError(msg)


def check_contiguous(t, name):
    """CHECK_CONTIGUOUS(x) / TORCH_CHECK(x.is_contiguous()) as in most extensions."""
    torch_check(t.is_contiguous(), f"{name} must be contiguous")


def expect_contiguous(t, name):
    """The bare TORCH_CHECK(x.is_contiguous()) message format."""
    torch_check(t.is_contiguous(),
                f"Expected {name}.is_contiguous() to be true, but got false.  "
                "(Could this error message be improved?  If so, please report "
                "an enhancement request to PyTorch.)")


def expect_last_dim_contiguous(t, name):
    torch_check(t.stride(-1) == 1,
                f"Expected {name}.stride(-1) == 1 to be true, but got false.  "
                "(Could this error message be improved?  If so, please report "
                "an enhancement request to PyTorch.)")


def assert_close_or_wrong(out, ref, atol=1e-4, rtol=1e-4):
    if out.shape != ref.shape or not torch.allclose(out.float(), ref.float(), atol=atol, rtol=rtol):
        raise AssertionError("wrong values")
