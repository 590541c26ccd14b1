"""Re-creation of RLinf/RLinf#832 ("Non-contiguous tensors from
to_splited_trajectories cause P2P communication failure"; same class as #971).

``split_dict_to_chunk`` splits rollout tensors with ``torch.chunk(dim=1)``,
which returns strided views; ``send_rollout_trajectories`` then goes through
the collective layer's ``_check_tensor_contiguous`` guard before the NCCL
send: "ValueError: All tensors must be contiguous when using P2P communication."
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from _support import nccl


def _check_tensor_contiguous(tensors):
    for t in tensors:
        if not t.is_contiguous():
            raise ValueError(
                "All tensors must be contiguous when using P2P communication.\n"
                "Otherwise the recv side might recv wrong tensor data.\n"
                "Consider using .contiguous() to make the tensors contiguous.")


def p2p_send_tensors(tensors, dst):
    _check_tensor_contiguous(tensors)
    for t in tensors:
        dist.send(t, dst)


def split_dict_to_chunk(data, num_chunks, dim=1):
    chunks = [dict() for _ in range(num_chunks)]
    for k, v in data.items():
        for i, part in enumerate(torch.chunk(v, num_chunks, dim=dim)):
            chunks[i][k] = part.contiguous()
    return chunks


def send_rollout_trajectories(traj, dst_ranks):
    for chunk, dst in zip(split_dict_to_chunk(traj, len(dst_ranks)), dst_ranks):
        p2p_send_tensors(list(chunk.values()), dst)


def make_trajectory():
    g = torch.Generator().manual_seed(0)
    return {"obs": torch.randn(4, 6, 3, generator=g),          # [T, num_envs, D]
            "rewards": torch.randn(4, 6, generator=g)}


def worker(rank, init_file, q):
    nccl.init(world_size=2, rank=rank, init_file=init_file)
    try:
        if rank == 0:
            # two env-groups, both served by the rollout worker on rank 1
            send_rollout_trajectories(make_trajectory(), dst_ranks=[1, 1])
        else:
            parts = []
            for _ in range(2):
                obs, rew = torch.empty(4, 3, 3), torch.empty(4, 3)
                dist.recv(obs, 0)
                dist.recv(rew, 0)
                parts.append((obs, rew))
            q.put((torch.cat([p[0] for p in parts], 1).tolist(), torch.cat([p[1] for p in parts], 1).tolist()))
    finally:
        nccl.shutdown()


def main():
    ctx = mp.get_context("spawn")
    q = ctx.SimpleQueue()
    mp.start_processes(worker, args=(tempfile.mktemp(), q), nprocs=2, start_method="spawn")
    obs, rew = q.get()
    ref = make_trajectory()
    if not (torch.equal(torch.tensor(obs), ref["obs"]) and torch.equal(torch.tensor(rew), ref["rewards"])):
        raise AssertionError("wrong values")
    print("ok")


if __name__ == "__main__":
    main()
