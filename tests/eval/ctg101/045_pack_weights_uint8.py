import torch


def pack_for_kernel(weight: torch.Tensor) -> torch.Tensor:
    """Kernel wants K-major weights reinterpreted as raw bytes."""
    w_t = weight.t()
    return w_t.view(torch.uint8)  # hazard: CTG101


class QuantLinear(torch.nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(o, i), requires_grad=False)

    def export(self):
        return pack_for_kernel(self.weight.data)


def main():
    QuantLinear(6, 4).export()
