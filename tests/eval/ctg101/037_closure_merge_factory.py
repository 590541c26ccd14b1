import torch


def make_head_merger(num_heads, head_dim):
    def merge(x):
        return x.view(x.shape[0], x.shape[1], num_heads * head_dim)  # hazard: CTG101
    return merge


def run_block(q, k, v, merge):
    w = (q @ k.transpose(-2, -1)).softmax(-1)
    ctx = (w @ v).swapaxes(1, 2)
    return merge(ctx)


def main():
    merge = make_head_merger(4, 8)
    q = k = v = torch.randn(2, 4, 5, 8)
    run_block(q, k, v, merge)
