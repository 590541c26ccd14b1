"""A seeded sample of 32 `--strict`-only findings on the held-out corpus (seed 12, of 726), run
under torch: fresh tensors are contiguous, the flagged views only split dims or add size-1 dims,
and the kornia callees that CTG114 takes for compiled-extension functions are Python functions
that accept strided input.

Run: python benchmarks/heldout_repro/strict_sample.py   (needs the held-out corpus)
"""
import torch
import torch.nn as nn

from common import outcome, use_packages

use_packages("kornia")


def fresh_tensors():
    # diffusers vidtok torch.tensor(0.0); accelerate/lightly torch.tensor(flag/float) sent to
    # broadcast/all_reduce; open_clip/torchtune scale * torch.randn(...); torchao zeros_like(bn_rm),
    # scaled_biases + bias; torchtune dora empty_like(1-D magnitude); peft cpt
    # embedding(ids).detach().clone().to(float32); ultralytics torch.as_tensor(numpy matrix)
    import numpy as np

    emb = nn.Embedding(10, 4)
    made = [torch.tensor(0.0), torch.tensor(True), 0.1 * torch.randn(8),
            torch.zeros_like(torch.ones(5)),
            torch.randn(3) + torch.randn(3), torch.empty_like(nn.Parameter(torch.ones(6))),
            emb(torch.tensor([1, 2])).detach().clone().to(torch.float32),
            torch.as_tensor(np.zeros((4, 4)))]
    return f"all contiguous: {all(t.is_contiguous() for t in made)}"


def split_and_size_one_views():
    # diffusers anyflow_far:722 freqs_h[:pph].view(1, pph, 1, -1) of a transposed pooled tensor;
    # visualcloze:517 latents[:, start:end].view(b, h/2, w/2, c/4, 2, 2); visualcloze:548 splits;
    # peft adaption_prompt:189 split(embed_dim, dim=2)[2].view(1, L, H, D)
    freqs_h = torch.randn(1, 16, 12).squeeze(0).transpose(0, 1)          # (L', C), transposed
    a = freqs_h[:8].view(1, 8, 1, -1)
    latents = torch.randn(2, 300, 64)[:, 40:40 + 64]
    b = latents.view(2, 8, 8, 16, 2, 2)
    value = torch.randn(1, 10, 3 * 64).split(64, dim=2)[2]
    c = value.view(1, 10, 4, 16)
    return f"{tuple(a.shape)}, {tuple(b.shape)}, {tuple(c.shape)}"


def one_byte_dtype_view():
    # torchao mx_tensor.py:809 b_scale_block.view(torch.float8_e8m0fnu) of uint8 scales
    s = torch.randint(0, 255, (32, 8), dtype=torch.uint8).t()
    return tuple(s.view(torch.float8_e8m0fnu).shape)


def kornia_python_callees():
    # kornia CTG114 (strict): rgb_to_grayscale, grayscale_to_rgb, transform_points, So3.exp,
    # Vector2.from_coords, Keypoints.from_tensor, draw_rectangle are Python functions of kornia
    from kornia.color import grayscale_to_rgb, rgb_to_grayscale
    from kornia.geometry import transform_points
    from kornia.geometry.keypoints import Keypoints
    from kornia.geometry.liegroup import So3
    from kornia.geometry.vector import Vector2
    from kornia.image import draw_rectangle

    img = torch.rand(2, 16, 16, 3).permute(0, 3, 1, 2)          # strided NCHW
    g = rgb_to_grayscale(img)
    ok = torch.allclose(g, rgb_to_grayscale(img.contiguous()))
    rgb = grayscale_to_rgb(g.permute(0, 1, 3, 2))
    pts = torch.rand(2, 3, 5).transpose(1, 2)                    # (B, N, 2+1) strided
    tp = transform_points(torch.eye(3).expand(2, 3, 3), pts[..., :2])
    so3 = So3.exp(torch.rand(4, 6)[:, ::2])
    v = Vector2.from_coords(torch.rand(5, 2)[:, 0], torch.rand(5, 2)[:, 1])
    kp = Keypoints.from_tensor(torch.rand(2, 2, 7).transpose(1, 2))
    canvas = torch.zeros(1, 3, 20, 20).transpose(2, 3).contiguous().transpose(2, 3)  # strided
    rect = draw_rectangle(canvas, torch.tensor([[[2.0, 2.0, 10.0, 10.0]]]))
    return (f"gray equal={ok}, rgb {tuple(rgb.shape)}, points {tuple(tp.shape)}, "
            f"so3 {tuple(so3.matrix().shape)}, vector {tuple(v.data.shape)}, "
            f"keypoints {tuple(kp.data.shape)}, rect {tuple(rect.shape)}")


def pointers_as_identities():
    # accelerate accelerator.py:4018 maps names to data_ptr() to match parameters; torchao
    # fp8_dynamic_tensorwise_test.py:199 compares .storage().tolist() on purpose
    p = nn.Linear(4, 4).weight
    same = {p.data_ptr(): "weight"}[p.t().data_ptr()]
    return f"data_ptr of a transpose names the same parameter: {same}"


if __name__ == "__main__":
    outcome("strict CTG103/CTG107 fresh tensors", fresh_tensors)
    outcome("strict CTG101 split / size-1 views", split_and_size_one_views)
    outcome("strict CTG101 1-byte dtype view", one_byte_dtype_view)
    outcome("strict CTG114 kornia Python callees on strided input", kornia_python_callees)
    outcome("strict CTG106 pointers as identities", pointers_as_identities)
