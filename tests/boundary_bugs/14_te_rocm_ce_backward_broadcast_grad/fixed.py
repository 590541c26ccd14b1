"""Re-creation of ROCm/TransformerEngine PR #623 ("Fix fused cross-entropy
backward with broadcasted grad_output").

``loss.sum().backward()`` hands the fused CE backward a grad_output that is a
single element expanded with stride 0 (shape (B, S), stride (0, 0)).
``cross_entropy_backward`` launches ``element_mul_kernel`` with a per-row
stride of ``1 if grad_output.numel() > 1 else 0`` -> rows past the first read
past the one-element allocation (garbage / inf / NaN gradients).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.triton_emu import tl, triton


@triton.jit
def element_mul_kernel(X_ptr, X_stride, grad_output_ptr, grad_output_stride, n_cols, BLOCK_SIZE):
    program_id = tl.program_id(0)
    X_ptr = X_ptr + program_id * X_stride
    grad_output = tl.load(grad_output_ptr + torch.tensor([program_id * grad_output_stride]))[0]
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(X_ptr + offs, mask=mask)
    tl.store(X_ptr + offs, x * grad_output, mask=mask)


def cross_entropy_backward(_input, grad_output):
    # _input already holds d(loss_row)/d(logits) from the forward pass
    n_rows, n_cols = _input.shape[0] * _input.shape[1], _input.shape[-1]
    grad_output = grad_output.contiguous()
    element_mul_kernel[(n_rows,)](_input, _input.stride(-2), grad_output,
                                  1 if grad_output.numel() > 1 else 0, n_cols,
                                  BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return _input


class CrossEntropyFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        probs = torch.softmax(logits, -1)
        loss = -torch.log(probs.gather(-1, target[..., None]))[..., 0]
        ctx.save_for_backward(probs - torch.nn.functional.one_hot(target, logits.shape[-1]).float())
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        (dlogits,) = ctx.saved_tensors
        return cross_entropy_backward(dlogits.clone(), grad_output), None


def main():
    torch.manual_seed(0)
    logits = torch.randn(4, 2, 16, requires_grad=True)
    target = torch.randint(0, 16, (4, 2))
    CrossEntropyFunction.apply(logits, target).sum().backward()
    ref_logits = logits.detach().clone().requires_grad_()
    torch.nn.functional.cross_entropy(ref_logits.reshape(-1, 16), target.reshape(-1),
                                      reduction="sum").backward()
    if not torch.allclose(logits.grad, ref_logits.grad, atol=1e-5):
        raise AssertionError("wrong values")
    print("ok", float(logits.grad.abs().sum()))


if __name__ == "__main__":
    main()
