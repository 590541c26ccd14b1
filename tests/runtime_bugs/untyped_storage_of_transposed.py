"""Serializing a tensor by dumping its storage bytes: the bytes are in memory order, not
logical order, for a transposed tensor."""
import torch

table = torch.arange(6.).reshape(2, 3).t()
payload = bytes(table.untyped_storage())  # bug-line: CTG106
restored = torch.frombuffer(bytearray(payload), dtype=torch.float32).reshape(3, 2)
print(torch.equal(restored, table))
