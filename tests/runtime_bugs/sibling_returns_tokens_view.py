"""ViT-style token head: tokens from a patch embedding in another module are
(batch, tokens, width) with transposed strides (a user module returning that is CTG202);
flattening batch and tokens for a per-token linear layer with .view() raises. The layout
arrives through a module defined in a sibling file."""
import torch

from _patch_embed import PatchEmbed

embed = PatchEmbed()
tokens = embed(torch.randn(2, 3, 32, 32))  # bug-line: CTG202
batch, count, width = tokens.shape
per_token = tokens.view(batch * count, width)  # bug-line: CTG101
