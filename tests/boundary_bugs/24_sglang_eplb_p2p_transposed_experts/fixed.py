"""Re-creation of sgl-project/sglang PR #32001 (also #31947): "[NPU][Fix Issue]:
Send expert weights contiguous tensor across cards during EPLB rebalance".

After PR #25663 the NPU MoE layer keeps ``w13_weight`` as a transposed view;
EPLB rebalancing sends ``weight[expert]`` with ``P2POp(dist.isend, ...)`` /
``batch_isend_irecv``.  HCCL raised "Tensors must be contiguous"; under NCCL
P2P only warns and ships ``numel`` elements from ``data_ptr()``, so the
receiver gets a scrambled expert.
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from _support import nccl


def make_layer_weights():
    g = torch.Generator().manual_seed(0)
    w13 = torch.randn(4, 6, 10, generator=g)            # [E, hidden, 2*inter] storage
    return [w13.transpose(1, 2)]                         # kernel-facing view [E, 2*inter, hidden]


def _create_p2p_send_ops(routed_experts_weights, src_expert, dst_rank):
    return [dist.P2POp(dist.isend, w[src_expert].contiguous(), dst_rank)
            for w in routed_experts_weights]


def _create_p2p_recv_ops(temp_buffers, src_rank):
    return [dist.P2POp(dist.irecv, buf, src_rank) for buf in temp_buffers]


def _execute_p2p_ops(p2p_ops):
    for req in dist.batch_isend_irecv(p2p_ops):
        req.wait()


def worker(rank, init_file, q):
    nccl.init(world_size=2, rank=rank, init_file=init_file)
    try:
        weights = make_layer_weights()
        if rank == 0:
            _execute_p2p_ops(_create_p2p_send_ops(weights, src_expert=2, dst_rank=1))
        else:
            temp = [torch.empty(w.shape[1:], dtype=w.dtype) for w in weights]
            _execute_p2p_ops(_create_p2p_recv_ops(temp, src_rank=0))
            weights[0][3].copy_(temp[0])                  # expert 2 of rank 0 -> slot 3
            q.put(weights[0][3].tolist())
    finally:
        nccl.shutdown()


def main():
    ctx = mp.get_context("spawn")
    q = ctx.SimpleQueue()
    mp.start_processes(worker, args=(tempfile.mktemp(), q), nprocs=2, start_method="spawn")
    got = torch.tensor(q.get())
    if not torch.equal(got, make_layer_weights()[0][2]):
        raise AssertionError("wrong values")
    print("ok", tuple(got.shape))


if __name__ == "__main__":
    main()
