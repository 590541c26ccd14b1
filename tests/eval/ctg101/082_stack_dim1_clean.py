import torch


def collect_views(crops):
    return torch.stack([c.t() for c in crops], dim=1)


def main():
    crops = [torch.randn(3, 4) for _ in range(2)]
    batch = collect_views(crops)
    flat = batch.view(batch.shape[0], -1)
    assert flat.shape == (4, 6)
