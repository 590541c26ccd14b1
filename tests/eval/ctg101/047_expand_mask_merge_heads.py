import torch


def build_attn_mask(key_padding_mask, num_heads, tgt_len):
    bsz, src_len = key_padding_mask.shape
    mask = key_padding_mask[:, None, None, :].expand(bsz, num_heads, tgt_len, src_len)
    return mask


def to_bmm_mask(mask):
    b, h, t, s = mask.shape
    return mask.view(b * h, t, s)  # hazard: CTG101


def main():
    kpm = torch.zeros(2, 7, dtype=torch.bool)
    kpm[:, 5:] = True
    m = build_attn_mask(kpm, num_heads=4, tgt_len=3)
    scores = torch.randn(8, 3, 7).masked_fill(to_bmm_mask(m), float("-inf"))
