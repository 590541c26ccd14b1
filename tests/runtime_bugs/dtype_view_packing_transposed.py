"""Weight packing for an int8 kernel reinterprets an int16 weight's bytes with .view(uint8);
the caller passes the weight transposed (the kernel wants (in, out)), and a dtype view with a
different element size needs a unit last stride, so it raises."""
import torch


def pack_bytes(weight):
    return weight.view(torch.uint8)  # bug-line: CTG101


quantized = torch.randint(-100, 100, (8, 4), dtype=torch.int16)
packed = pack_bytes(quantized.t())
