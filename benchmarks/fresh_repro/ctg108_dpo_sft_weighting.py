"""CTG108: trl 1.16.0 trl/trainer/dpo_trainer.py:1526 and unsloth 2026.10.9 unsloth/models/dpo.py:887
`per_sequence_loss *= chosen_weights * rejected_weights`.

Excerpt (both files, loss_type == "sft" branch, then the use_weighting block; DPOConfig only
forbids use_weighting with the aot losses, trl dpo_trainer.py:819):
    batch_loss = -chosen_per_token_logps[chosen_mask.bool()].mean()
    per_sequence_loss = batch_loss.expand(batch_size)
    ...
    if self.use_weighting:
        ...
        weights = torch.exp(mean_logps)
        chosen_weights, rejected_weights = weights.chunk(2, dim=0)
        per_sequence_loss *= chosen_weights * rejected_weights
Self-contained: realistic per-token log-probs from a small head, chosen + rejected halves.
"""
import torch
import torch.nn.functional as F
from common import report

torch.manual_seed(0)
B, S, V = 4, 6, 11            # 2 chosen + 2 rejected sequences
hidden = torch.randn(B, S, 8)
head = torch.nn.Linear(8, V)
labels = torch.randint(0, V, (B, S))
shift_completion_mask = torch.ones(B, S, dtype=torch.long); shift_completion_mask[:, :2] = 0
log_sum_sq_probs = torch.randn(B, S) * 0.1 - 1.0


def loss_for(loss_type, use_weighting):
    per_token_logps = torch.gather(F.log_softmax(head(hidden), -1), 2, labels[..., None]).squeeze(-1)
    chosen_mask, _ = shift_completion_mask.chunk(2, dim=0)
    chosen_per_token_logps, _ = per_token_logps.chunk(2, dim=0)
    if loss_type == "sft":
        batch_loss = -chosen_per_token_logps[chosen_mask.bool()].mean()
        per_sequence_loss = batch_loss.expand(chosen_per_token_logps.size(0))
    else:  # sigmoid, for contrast
        s = (per_token_logps * shift_completion_mask).sum(1)
        c, r = s.chunk(2)
        per_sequence_loss = -F.logsigmoid(0.1 * (c - r))
    if use_weighting:
        completion_lengths = shift_completion_mask.sum(dim=1).clamp_min(1)
        with torch.no_grad():
            aligned_logps = (per_token_logps - log_sum_sq_probs) * shift_completion_mask
        mean_logps = aligned_logps.sum(dim=1) / completion_lengths
        weights = torch.exp(mean_logps)
        chosen_weights, rejected_weights = weights.chunk(2, dim=0)
        print(f"    per_sequence_loss stride {per_sequence_loss.stride()} before the in-place multiply")
        per_sequence_loss *= chosen_weights * rejected_weights
    loss = per_sequence_loss.mean()
    loss.backward()
    return f"loss {loss.item():.4f}, backward ok"


for lt, w in [("sft", False), ("sigmoid", True), ("sft", True)]:
    report(f"  loss_type={lt!r} use_weighting={w}", lambda: loss_for(lt, w))
