"""Four opt-in findings on the held-out corpus that the model at 5c9cc65 reported for the first
time (CTG102, CTG103, CTG104 twice), each run on its flagged path.

- peft `utils/incremental_pca.py:289` (CTG102, true): `components_ = Vt[:n_components]`, where
  the low-rank path's Vt is `V.mH` of torch.svd_lowrank (EVA's setting): a non-contiguous row
  slice that pins V's whole storage, and torch.save of the EVA state writes all of it.
- kornia `feature/aliked/aliked.py:242` (CTG103, false): the buffer
  `stack(meshgrid(...)).view(2, -1).t()[:, [1, 0]]` is an advanced-indexing copy, which
  TensorIterator lays out contiguous here.
- kornia `geometry/boxes.py:1041` and `:1671` (CTG104, false): `_data` was called permuted by
  `boxes.reshape((-1, 4))` on the path where `boxes` is 0-d; a tensor of one element is
  contiguous, and that reshape raises anyway (one element is no (-1, 4)).
Run: python benchmarks/heldout_repro/opt_in_new.py
"""
import importlib.util
import io

import torch

from common import CACHE, PINNED, outcome, use_packages


def incremental_pca_components():
    tree = CACHE / "trees" / f"peft-{PINNED['peft']}"
    spec = importlib.util.spec_from_file_location(
        "incremental_pca", tree / "peft" / "utils" / "incremental_pca.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pca = module.IncrementalPCA(n_components=16, copy=True, lowrank=True, lowrank_seed=42)
    pca.fit(torch.randn(512, 1024))
    c = pca.components_
    saved, copied = io.BytesIO(), io.BytesIO()
    torch.save({"u": c}, saved)
    torch.save({"u": c.contiguous()}, copied)
    return (f"components_ {tuple(c.shape)} strides {c.stride()} contiguous={c.is_contiguous()}, "
            f"pins {c.untyped_storage().nbytes()} bytes for {c.numel() * c.element_size()}; "
            f"torch.save writes {len(saved.getvalue())} bytes, of a contiguous copy "
            f"{len(copied.getvalue())}")


def aliked_hw_grid():
    use_packages("kornia")
    from kornia.feature.aliked.aliked import DKD
    grid = DKD(radius=2).hw_grid
    return f"hw_grid {tuple(grid.shape)} strides {grid.stride()} contiguous={grid.is_contiguous()}"


def boxes_zero_dim():
    use_packages("kornia")
    from kornia.geometry.boxes import Boxes
    try:
        Boxes(torch.tensor(1.0))
    except Exception as error:  # the 0-d path: the reshape itself raises
        return f"0-d input raises {type(error).__name__}: {str(error).splitlines()[0][:60]}"
    return "0-d input accepted"


if __name__ == "__main__":
    outcome("peft IncrementalPCA.components_ (low-rank)", incremental_pca_components)
    outcome("kornia ALIKED DKD.hw_grid", aliked_hw_grid)
    outcome("kornia Boxes of a 0-d tensor", boxes_zero_dim)
