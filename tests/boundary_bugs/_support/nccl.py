"""A ProcessGroupNCCL stand-in registered as the c10d backend ``fakenccl``.

User code calls the ordinary ``torch.distributed`` API; c10d dispatches to this
``torch.distributed.ProcessGroup`` subclass, which applies the tensor checks
that ProcessGroupNCCL.cpp applies per op and then moves bytes the way NCCL
does: through ``data_ptr()`` + ``numel()`` as a dense block.

Checks mirrored from torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp as read
through the search index (pytorch/pytorch commit 0007e752..., a 2.x-era file) plus
the P2P relaxation of ``check_gpu_single_tensor(t, p2p=true)`` (PR #114982):
``!t.is_contiguous(t.suggest_memory_format())`` -> C10_THROW_ERROR(ValueError,
"Tensors must be contiguous"), or only a TORCH_WARN_ONCE for P2P ops.  The
raised class derives from both ValueError (current) and RuntimeError (older
releases).  Per op:
  allreduce / broadcast / reduce       : the tensor
  allgather (list)                     : input (outputs go through a flat buffer + copy_)
  _allgather_base (all_gather_into_tensor): input and output
  reduce_scatter (list)                : output (inputs copied into a flat buffer)
  _reduce_scatter_base (reduce_scatter_tensor): no layout check -> raw memory
  alltoall_base (all_to_all_single)    : input and output
  alltoall (list)                      : every input and output
  scatter                              : outputs only (inputs ncclSend()-ed raw)
  send / recv                          : P2P -> warning only, raw bytes
"""
import os
import sys
import tempfile
import warnings
from datetime import timedelta

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import _create_work_from_future
from torch.futures import Future

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from _support.raw import read_dense, write_dense  # noqa: E402


class NCCLContiguityError(ValueError, RuntimeError):
    """c10::ValueError; older releases surfaced it as RuntimeError."""


def _suggest_contiguous(t):
    if t.is_contiguous():
        return True
    if t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last):
        return True
    if t.dim() == 5 and t.is_contiguous(memory_format=torch.channels_last_3d):
        return True
    return False


def check_gpu_single_tensor(t, p2p=False):
    if t.is_sparse:
        raise NCCLContiguityError("Tensors must be CUDA and dense")
    if not _suggest_contiguous(t):
        if p2p:
            warnings.warn("Detected non-contiguous tensor in P2P operations. It is user "
                          "responsibility to guarantee that source and destination tensors "
                          "have the same contiguity format.")
        else:
            raise NCCLContiguityError("Tensors must be contiguous")


def _done(ret=None):
    fut = Future()
    fut.set_result(ret)
    return _create_work_from_future(fut)


def _reduce(op, xs):
    if op == dist.ReduceOp.SUM:
        return torch.stack(xs).sum(0)
    if op == dist.ReduceOp.MAX:
        return torch.stack(xs).amax(0)
    if op == dist.ReduceOp.MIN:
        return torch.stack(xs).amin(0)
    if op == dist.ReduceOp.AVG:
        return torch.stack(xs).mean(0)
    if op == dist.ReduceOp.PRODUCT:
        return torch.stack(xs).prod(0)
    raise NotImplementedError(op)


class FakeNCCLProcessGroup(dist.ProcessGroup):
    """Single-process ranks: the other ranks' contributions are taken to be
    identical copies of this rank's buffer (world_size may be >1 for shapes);
    point-to-point goes through the c10d store (2 real processes)."""

    def __init__(self, store, rank, world_size):
        super().__init__(rank, world_size)
        self._store, self._rank, self._ws = store, rank, world_size
        self._p2p_seq = {}

    def getBackendName(self):
        return "fakenccl"

    def size(self):
        return self._ws

    # NCCL sees only data_ptr()+numel(): take the dense bytes
    def _wire(self, t):
        return read_dense(t)

    def allreduce(self, tensors, opts=None):
        t = tensors[0]
        check_gpu_single_tensor(t)
        write_dense(t, _reduce(opts.reduceOp, [self._wire(t)] * self._ws))
        return _done(tensors)

    def broadcast(self, tensors, opts=None):
        check_gpu_single_tensor(tensors[0])
        return _done(tensors)

    def reduce(self, tensors, opts=None):
        t = tensors[0]
        check_gpu_single_tensor(t)
        write_dense(t, _reduce(opts.reduceOp, [self._wire(t)] * self._ws))
        return _done(tensors)

    def allgather(self, output_tensors, input_tensors, opts=None):
        inp = input_tensors[0]
        check_gpu_single_tensor(inp)
        data = self._wire(inp)
        for o in output_tensors[0]:           # flat buffer, then outputs[j].copy_(flat[j])
            o.copy_(data.reshape(o.shape))
        return _done(output_tensors)

    def _allgather_base(self, output, inp, opts=None):
        check_gpu_single_tensor(inp)
        check_gpu_single_tensor(output)
        if inp.numel() * self._ws != output.numel():
            raise ValueError("output tensor size must be equal to world_size times input tensor size")
        write_dense(output, self._wire(inp).reshape(-1).repeat(self._ws))
        return _done([output])

    all_gather_single = _allgather_base

    def reduce_scatter(self, output_tensors, input_tensors, opts=None):
        out = output_tensors[0]
        check_gpu_single_tensor(out)
        chunks = [c.contiguous() for c in input_tensors[0]]   # copied into flat buffer
        mine = chunks[self._rank]
        out.copy_(_reduce(opts.reduceOp, [mine] * self._ws).reshape(out.shape))
        return _done(output_tensors)

    def _reduce_scatter_base(self, output, inp, opts=None):
        if inp.numel() != output.numel() * self._ws:
            raise ValueError("input tensor must be the same size as output size times world size")
        flat = self._wire(inp).reshape(-1)        # ncclReduceScatter(input.data_ptr(), ...)
        n = output.numel()
        mine = flat[self._rank * n:(self._rank + 1) * n]
        write_dense(output, _reduce(opts.reduceOp, [mine] * self._ws))
        return _done([output])

    reduce_scatter_single = _reduce_scatter_base

    def alltoall_base(self, output, inp, output_split_sizes, input_split_sizes,
                      opts=None):
        check_gpu_single_tensor(output)
        check_gpu_single_tensor(inp)
        write_dense(output, self._wire(inp))
        return _done([output])

    all_to_all_single = alltoall_base

    def alltoall(self, output_tensors, input_tensors, opts=None):
        for o, i in zip(output_tensors, input_tensors):
            check_gpu_single_tensor(o)
            check_gpu_single_tensor(i)
        for o, i in zip(output_tensors, input_tensors):
            write_dense(o, self._wire(i))
        return _done(output_tensors)

    def scatter(self, output_tensors, input_tensors, opts=None):
        # ProcessGroupNCCL::scatter checks the outputs only; torch::cuda::nccl::scatter
        # then ncclSend()s inputs[r].data_ptr() for r != root and copy_()s its own.
        out = output_tensors[0]
        check_gpu_single_tensor(out)
        root = opts.rootRank
        if self._rank == root:
            for r, t in enumerate(input_tensors[0]):
                if r == root:
                    out.copy_(t)
                else:
                    self._store.set(self._key(root, r, "scatter"), read_dense(t).numpy().tobytes())
        else:
            payload = self._store.get(self._key(root, self._rank, "scatter"))
            write_dense(out, torch.frombuffer(bytearray(payload), dtype=out.dtype))
        return _done(output_tensors)

    def barrier(self, opts=None):
        return _done()

    # ---- point to point: raw bytes through the store --------------------
    def _key(self, src, dst, tag):
        k = (src, dst, tag)
        self._p2p_seq[k] = self._p2p_seq.get(k, 0) + 1
        return f"p2p/{src}->{dst}/{tag}/{self._p2p_seq[k]}"

    def send(self, tensors, dst, tag=0):
        t = tensors[0]
        check_gpu_single_tensor(t, p2p=True)
        payload = read_dense(t).numpy().tobytes()        # ncclSend(t.data_ptr(), numel)
        self._store.set(self._key(self._rank, dst, tag), payload)
        return _done(tensors)

    def recv(self, tensors, src, tag=0):
        t = tensors[0]
        check_gpu_single_tensor(t, p2p=True)
        payload = self._store.get(self._key(src, self._rank, tag))
        vals = torch.frombuffer(bytearray(payload), dtype=t.dtype)
        write_dense(t, vals)                              # ncclRecv(t.data_ptr(), numel)
        return _done(tensors)


def _create(store, rank, world_size, timeout):
    return FakeNCCLProcessGroup(store, rank, world_size)


if "fakenccl" not in dist.Backend.backend_list:
    dist.Backend.register_backend("fakenccl", _create, devices=["cpu", "cuda"])


def init(world_size=1, rank=0, init_file=None):
    """dist.init_process_group(backend="fakenccl", init_method="file://...")."""
    if init_file is None:
        init_file = tempfile.mktemp(prefix="fakenccl_")
    dist.init_process_group(backend="fakenccl", init_method=f"file://{init_file}",
                            rank=rank, world_size=world_size, timeout=timedelta(seconds=60))


def shutdown():
    if dist.is_initialized():
        dist.destroy_process_group()
