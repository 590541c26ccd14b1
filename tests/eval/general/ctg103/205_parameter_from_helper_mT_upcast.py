import torch
from torch import nn


def load_fp16_expert_weights(n_experts, d_in, d_out):
    """Checkpoint stores experts as (n, d_out, d_in) fp16; kernels want (n, d_in, d_out)."""
    stored = (torch.randn(n_experts, d_out, d_in) * 0.05).half()
    return stored.mT.float()


class MoEExperts(nn.Module):
    def __init__(self, n_experts, d_in, d_out):
        super().__init__()
        self.w = nn.Parameter(load_fp16_expert_weights(n_experts, d_in, d_out))  # hazard: CTG103

    def forward(self, x, expert_idx):
        return torch.bmm(x.unsqueeze(1), self.w[expert_idx]).squeeze(1)


def main():
    moe = MoEExperts(4, 6, 3)
    x = torch.randn(5, 6)
    idx = torch.randint(0, 4, (5,))
    print(moe(x, idx).shape)
