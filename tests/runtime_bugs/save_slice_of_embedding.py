"""Exporting the first rows of a big embedding table: torch.save writes the whole storage a
view lives in, so the 'small' file holds the full table (documented torch behaviour)."""
import os
import tempfile

import torch

table = torch.randn(50_000, 64)
head = table[:100]
path = os.path.join(tempfile.mkdtemp(), "head.pt")
torch.save({"head": head}, path)  # bug-line: CTG112
print(os.path.getsize(path) // 1024, "KiB for", head.numel() * 4 // 1024, "KiB of data")
