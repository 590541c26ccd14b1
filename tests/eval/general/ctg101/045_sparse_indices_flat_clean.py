import torch


def adjacency_from_edges(src, dst, n):
    idx = torch.stack([src, dst])
    vals = torch.ones(src.numel())
    return torch.sparse_coo_tensor(idx, vals, (n, n)).coalesce()


def edge_pairs_flat(adj):
    edge_index = adj.indices()
    values = adj.values()
    return edge_index.view(-1), values.view(-1, 1)


def main():
    src = torch.tensor([0, 1, 2, 3, 3])
    dst = torch.tensor([1, 2, 3, 0, 1])
    adj = adjacency_from_edges(src, dst, 4)
    flat, vals = edge_pairs_flat(adj)
    print(flat, vals.shape)
