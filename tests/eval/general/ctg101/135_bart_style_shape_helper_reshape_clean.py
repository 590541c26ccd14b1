import torch
from torch import nn


class BartLikeAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)

    def _shape(self, tensor, seq_len, bsz):
        return tensor.view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2).contiguous()

    def forward(self, hidden):
        bsz, tgt_len, _ = hidden.shape
        proj_shape = (bsz * self.num_heads, -1, self.head_dim)
        q = self._shape(self.q_proj(hidden), tgt_len, bsz).view(*proj_shape)
        k = self._shape(self.k_proj(hidden), tgt_len, bsz).view(*proj_shape)
        v = self._shape(self.v_proj(hidden), tgt_len, bsz).view(*proj_shape)
        attn = torch.softmax(torch.bmm(q, k.transpose(1, 2)), dim=-1)
        out = torch.bmm(attn, v).view(bsz, self.num_heads, tgt_len, self.head_dim)
        out = out.transpose(1, 2)
        return out.reshape(bsz, tgt_len, self.embed_dim)


def main():
    attn = BartLikeAttention(16, 4)
    print(attn(torch.randn(2, 5, 16)).shape)
