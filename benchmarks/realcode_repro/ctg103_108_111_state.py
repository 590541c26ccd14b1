"""CTG103, CTG108 and CTG111 findings on the real-code corpus, run under torch.

Run: python benchmarks/realcode_repro/ctg103_108_111_state.py
"""
import torch
import torch.nn as nn

from common import outcome


def final_logits_bias_resize():
    # transformers/models/bart/modeling_bart.py (and its copies): _resize_final_logits_bias
    m = nn.Module()
    m.register_buffer("final_logits_bias", torch.zeros((1, 50)))
    new_bias = m.final_logits_bias[:, :40]  # (1, n): the size-1 leading dim makes it contiguous
    m.final_logits_bias = nn.Buffer(new_bias) if hasattr(nn, "Buffer") else new_bias
    m.load_state_dict({"final_logits_bias": torch.ones(1, 40)})
    return f"contiguous={new_bias.is_contiguous()}"


def expanded_buffer_load_state_dict():
    # gpytorch/priors/horseshoe_prior.py, torchrl/envs/transforms/_action.py: a buffer made by
    # .expand(batch_shape); load_state_dict copies into it in place
    m = nn.Module()
    m.register_buffer("scale", torch.as_tensor(0.5).expand(3))
    m.load_state_dict({"scale": torch.tensor([1.0, 2.0, 3.0])})
    return f"scale={m.scale.tolist()}"


def openvino_placeholder():
    # transformers/exporters/exporter_openvino.py: a Parameter of an expanded zero placeholder
    parameter = torch.randn(4, 4)
    placeholder = torch.zeros((), dtype=parameter.dtype).expand(parameter.shape)
    p = nn.Parameter(placeholder, requires_grad=False)
    return f"stride={p.stride()} (the placeholder is only traced, never written)"


def whisper_mel_filters():
    # speechbrain/integrations/huggingface/whisper.py: mel filters from numpy .T
    import numpy as np
    mel = np.random.rand(201, 80).T
    m = nn.Module()
    m.register_buffer("_mel_filters", torch.as_tensor(mel, dtype=torch.float32))
    m.load_state_dict(m.state_dict())
    spec = torch.randn(201, 30)
    return f"matmul ok {tuple((m._mel_filters @ spec).shape)}, load_state_dict ok"


def value_discount_under_compile():
    # torchrl/objectives/value/functional.py _make_gammas_tensor-like helper: under dynamo,
    # rs = r.expand_as(t); rs[0] = 1.0 writes r itself
    r = torch.tensor(0.9)
    t = torch.zeros(5)
    rs = r.expand_as(t)
    rs[0] = 1.0
    return f"gamma after the call = {r.item()} (was 0.9)"


def megatron_reduce_noncontiguous_grad():
    # megatron/core/tensor_parallel/mappings.py _reduce: all_reduce(input_.contiguous()); a
    # non-contiguous gradient is reduced into a temporary and returned unreduced. all_reduce is
    # emulated by doubling in place (what a 2-rank sum of equal values does).
    grad = torch.ones(3, 4).t()
    grad.contiguous().mul_(2)
    return f"grad after the reduce: {grad[0, 0].item()} (expected 2.0)"


def tictactoe_board():
    # torchrl/envs/custom/tictactoeenv.py _step: board is a clone of a spec-made (contiguous) board
    board = torch.zeros(3, 3, dtype=torch.int).clone()
    board.flatten(-2, -1).scatter_(index=torch.tensor([4]), dim=-1, value=1)
    return f"board written: {board.sum().item() == 1}"


if __name__ == "__main__":
    outcome("transformers bart & copies: final_logits_bias[:, :n] buffer",
            final_logits_bias_resize)
    outcome("gpytorch horseshoe / torchrl _action: expanded buffer",
            expanded_buffer_load_state_dict)
    outcome("transformers exporter_openvino: expanded placeholder Parameter", openvino_placeholder)
    outcome("speechbrain whisper: mel filters .T buffer", whisper_mel_filters)
    outcome("torchrl value/functional.py:205 rs[0] = 1.0", value_discount_under_compile)
    outcome("megatron mappings.py:31 _reduce", megatron_reduce_noncontiguous_grad)
    outcome("torchrl tictactoeenv.py:218", tictactoe_board)
