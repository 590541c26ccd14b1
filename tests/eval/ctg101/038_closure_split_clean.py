import torch


def make_head_splitter(num_heads):
    def split(x):
        b, n, c = x.shape
        return x.view(b, n, num_heads, c // num_heads).swapaxes(1, 2)
    return split


def make_head_merger(num_heads, head_dim):
    def merge(x):
        return x.swapaxes(1, 2).reshape(x.shape[0], -1, num_heads * head_dim)
    return merge


def main():
    split, merge = make_head_splitter(4), make_head_merger(4, 8)
    x = torch.randn(2, 5, 32)
    q = split(x)
    out = merge(torch.softmax(q @ q.transpose(-1, -2), -1) @ q)
    assert out.view(-1, 32).shape == (10, 32)
