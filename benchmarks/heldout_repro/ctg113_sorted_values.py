"""An opt-in finding on the held-out corpus that the model reported for the first
time at 183a3de (`.values` of a sort read as its values), run on its flagged path.

- sentence-transformers `sentence_transformer/losses/batch_semi_hard_triplet.py:142` (CTG113,
  true): `sorted_negatives.detach().contiguous()`, where `sorted_negatives =
  pdist_matrix.masked_fill(adjacency, torch.inf).sort(dim=1, stable=True).values`: masked_fill
  returns a fresh contiguous tensor and sort's values keep that layout, so the `.contiguous()`
  returns the tensor itself. Excerpt of BatchSemiHardTripletLoss.batch_semi_hard_triplet_loss
  (the package imports transformers, so it is copied), with a euclidean distance matrix
  (torch.cdist, standing in for the package's own) and, to show the layout does not come from
  it, its transpose.
Run: python benchmarks/heldout_repro/ctg113_sorted_values.py
"""
import torch

from common import outcome


def sorted_negatives(batch: int, dim: int, transposed: bool) -> str:
    embeddings = torch.randn(batch, dim)
    labels = torch.randint(0, 4, (batch,)).unsqueeze(1)
    pdist_matrix = torch.cdist(embeddings, embeddings)
    if transposed:
        pdist_matrix = pdist_matrix.t()
    adjacency = labels == labels.t()
    negatives = pdist_matrix.masked_fill(adjacency, torch.inf)
    sorted_negatives = negatives.sort(dim=1, stable=True).values
    flagged = sorted_negatives.detach()
    same = flagged.contiguous().data_ptr() == flagged.data_ptr()
    return (f"sorted_negatives {tuple(flagged.shape)} strides {flagged.stride()} "
            f"contiguous={flagged.is_contiguous()}, .contiguous() returns itself: {same}")


if __name__ == "__main__":
    for batch, dim, transposed in ((16, 32, False), (1, 8, False), (64, 384, True)):
        outcome(f"batch_semi_hard_triplet.py:142 batch={batch} dim={dim} "
                f"transposed={transposed}", lambda: sorted_negatives(batch, dim, transposed))
