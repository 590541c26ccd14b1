"""Position ids built once with arange().expand(batch, -1) and passed to a helper that shifts
the padded rows in place: the write lands in the one shared row, so every sample changes."""
import torch


def skip_padding(position_ids, padded_rows):
    for row in padded_rows:
        position_ids[row] += 1  # bug-line: CTG108
    return position_ids


ids = skip_padding(torch.arange(6).expand(3, -1), [1])
print(ids)
