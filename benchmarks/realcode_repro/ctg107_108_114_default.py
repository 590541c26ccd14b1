"""The default-mode CTG107, CTG108 and CTG114 findings on the tuning corpus, run under torch.

Each case runs the flagged path as a short cited excerpt with realistic inputs (the packages
are not imported). The liger-kernel kernels are Triton/NPU code that cannot run here; where a
case needs what the kernel reads, a Python stand-in reads the tensor's raw memory with the
kernel's own row-major offsets (strideless), as the kernel source shows.
Run: python benchmarks/realcode_repro/ctg107_108_114_default.py
"""
import os
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from common import outcome


def raw_row_major(t):
    """What a strideless kernel reads: numel elements of t's memory from its data pointer."""
    flat = torch.empty(0, dtype=t.dtype)
    flat.set_(t.untyped_storage(), t.storage_offset(), (t.numel(),))
    return flat.view(t.shape)


# --- torchrec/distributed/sharding/dynamic_sharding.py:311-332 (CTG107) -------------------
def _isend_worker(rank, init_file, result_file):
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=2)
    try:
        # local_optimizer_tensor = local_optimizer_tensor[:, split_offsets[0]:split_offsets[1]]
        # comm_op = dist.P2POp(dist.isend, local_optimizer_tensor, dst_rank, ...)
        # (the model-state path two blocks below does `if not dst_t.is_contiguous():
        # dst_t = dst_t.contiguous()`; this optimizer path does not)
        momentum = torch.arange(24.0).view(4, 6)  # a 2-D optimizer state shard
        if rank == 0:
            op = dist.P2POp(dist.isend, momentum[:, 2:5], 1)
        else:
            op = dist.P2POp(dist.irecv, torch.empty(4, 3), 0)
        try:
            for work in dist.batch_isend_irecv([op]):
                work.wait()
            text = "sent"
        except Exception as error:
            text = f"raised {str(error).splitlines()[0][:100]}"
        if rank == 0:
            with open(result_file, "w") as f:
                f.write(text)
    finally:
        dist.destroy_process_group()


def torchrec_optimizer_isend():
    with tempfile.TemporaryDirectory() as tmp:
        result = os.path.join(tmp, "result")
        mp.spawn(_isend_worker, args=(os.path.join(tmp, "init"), result), nprocs=2, join=True)
        with open(result) as f:
            text = f.read()
    if text.startswith("raised "):
        raise RuntimeError(text[len("raised "):])
    return text


# --- tensordict/memmap.py (CTG108 :809/:878, CTG114 :817/:887/:1009/:1085) ----------------
def _from_tensor_strided(input, shape):
    # from_tensor, a torch.Size shape (memmap.py:449-451, 500-507): a fresh buffer viewed to
    # the shape, then `result.copy_(input)`; the `.untyped_storage().copy_` the finding names is
    # on the `isinstance(shape, torch.Tensor)` (nested) branch only
    result = torch.frombuffer(bytearray(input.dtype.itemsize * shape.numel()), dtype=input.dtype)
    result = result.view(shape)
    result.copy_(input)
    return result


def tensordict_ones_zeros_full_empty():
    # ones/zeros/full/empty with a Size: result = torch.ones(()).expand(shape); from_tensor(result)
    shape = torch.Size((2, 3))
    out = []
    for value in (1.0, 0.0, 2.5):
        scalar = torch.full((), value)
        made = _from_tensor_strided(scalar.expand(shape), shape)
        made[0, 0] = 7.0  # the result is a fresh buffer: the scalar stays as it was
        out.append(made.is_contiguous() and made[1].eq(value).all().item()
                   and scalar.item() == value)
    return f"fresh contiguous, right values, source untouched: {all(out)}"


def tensordict_nested_fill():
    # ones/zeros with a shape tensor: cls.empty(shape, ...).fill_(1); empty builds a fresh
    # buffer (torch.frombuffer of its own handler) viewed with _nested_view_from_buffer
    shape = torch.tensor([[2, 3], [1, 3]])
    offsets_strides = torch._nested_compute_contiguous_strides_offsets(shape)
    buffer = torch.frombuffer(bytearray(4 * int(shape.prod(-1).sum())), dtype=torch.float32)
    nested = torch._nested_view_from_buffer(buffer, shape, *offsets_strides)
    nested.fill_(1)
    return (f"buffer sum {buffer.sum().item()} (= {int(shape.prod(-1).sum())} elements, "
            f"none shared)")


# --- liger-kernel (CTG114) ------------------------------------------------------------------
def ensure_contiguous(fn):
    # liger_kernel/ops/utils.py:44-54, verbatim in effect: every tensor argument of the
    # decorated forward/backward is passed through .contiguous()
    def wrapper(ctx, *args, **kwargs):
        def maybe_to_contiguous(x):
            return x.contiguous() if isinstance(x, torch.Tensor) else x
        args = [maybe_to_contiguous(arg) for arg in args]
        kwargs = {k: maybe_to_contiguous(v) for k, v in kwargs.items()}
        return fn(ctx, *args, **kwargs)
    return wrapper


seen = {}


class DecoratedBackward(torch.autograd.Function):
    # dyt.py:159-163 and _ascend dyt.py:280-284 (`assert dy.is_contiguous()`), kl_div
    # _ascend:307-319 and fused_ce_tvd.py:336-347 (kernels read grad_output / grad_ce /
    # grad_tvd with row-major offsets): backward is decorated with @ensure_contiguous
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @ensure_contiguous
    def backward(ctx, dy):
        assert dy.is_contiguous()  # liger_dyt_bwd's first line
        seen["ok"] = torch.equal(raw_row_major(dy), dy)  # the kernel's strideless read
        return dy * 2


def liger_decorated_backward():
    x = torch.randn(6, 4, requires_grad=True)
    y = DecoratedBackward.apply(x)
    (y.t() * torch.arange(24.0).view(4, 6)).sum().backward()  # a transposed gradient
    x2 = torch.randn(6, 4, requires_grad=True)
    DecoratedBackward.apply(x2).sum(-1).mean().backward()  # an expanded gradient
    return f"dy contiguous in backward, raw read equals dy: {seen['ok']}"


class ScalarLoss(torch.autograd.Function):
    # _ascend/ops/fused_linear_jsd.py:162 `loss = torch.sum(loss_1d)`: the output is 0-d, so
    # grad_output (read by _element_mul_kernel as one scalar) is 0-d
    @staticmethod
    def forward(ctx, x):
        return torch.sum(x)

    @staticmethod
    def backward(ctx, grad_output):
        seen["scalar"] = (grad_output.dim(), grad_output.is_contiguous())
        return grad_output.expand(3)


def liger_fused_linear_jsd_scalar_grad():
    x = torch.randn(3, requires_grad=True)
    (ScalarLoss.apply(x).expand(5) * torch.arange(5.0)).sum().backward()
    return f"grad_output dim, contiguous = {seen['scalar']}"


def liger_cutedsl_rope_backward():
    # ops/cutedsl/ops/rope.py:952-967: a contiguous dq/dk goes to the in-place kernels; any
    # other layout is `dq.transpose(1, 2).contiguous()` before the flat .view(-1, head_dim)
    b, h, s, d = 2, 4, 5, 8
    q = torch.randn(b, h, s, d, requires_grad=True)
    grads = {}
    q.register_hook(lambda g: grads.setdefault("dq", g))
    (q.transpose(1, 2) * torch.randn(b, s, h, d)).sum().backward()  # the SDPA layout
    dq = grads["dq"]
    if dq.is_contiguous():
        read = dq
    else:
        read = dq.transpose(1, 2).contiguous()
    return (f"dq contiguous={dq.is_contiguous()}, what the kernel reads contiguous="
            f"{read.is_contiguous()}, raw read right={torch.equal(raw_row_major(read), read)}")


if __name__ == "__main__":
    outcome("torchrec dynamic_sharding: isend of a column slice of optimizer state (gloo)",
            torchrec_optimizer_isend)
    outcome("tensordict ones/zeros/full/empty: from_tensor of an expanded scalar",
            tensordict_ones_zeros_full_empty)
    outcome("tensordict ones/zeros with a shape tensor: empty(...).fill_", tensordict_nested_fill)
    outcome("liger dyt / kl_div / fused_ce_tvd: @ensure_contiguous backward",
            liger_decorated_backward)
    outcome("liger _ascend fused_linear_jsd: grad of a 0-d loss",
            liger_fused_linear_jsd_scalar_grad)
    outcome("liger cutedsl rope_backward: the layout branch", liger_cutedsl_rope_backward)
