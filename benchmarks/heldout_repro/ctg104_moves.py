"""CTG104 on the held-out corpus (all 52 flagged lines): the device copy of a permuted tensor
keeps its strides, and what the flagged code does with it next.

Every consumer of the 50 lines judged false is one of these; each is run here on a permuted tensor
moved with .to()/.cpu() (CPU -> CPU with a dtype change: the machine has no second device; a
device copy keeps strides the same way) and compared with the same op on a contiguous copy. The 2
unsure lines hand the strided array to PyAV and onnxruntime, which are not installed here.
Run: python benchmarks/heldout_repro/ctg104_moves.py
"""
import numpy as np
import torch
import torch.nn.functional as F

from common import outcome

nhwc = torch.randn(2, 16, 16, 3)  # an image batch decoded as NHWC, permuted to NCHW, then moved
moved = nhwc.permute(0, 3, 1, 2).to(torch.float64)
ref = moved.contiguous()


def strides_kept():
    return f"moved strides {moved.stride()} (contiguous={moved.is_contiguous()})"


def conv_vae_encode():
    # vae.encode / movq.encode / face_parse (diffusers echo, animatediff, paint_by_example,
    # kandinsky2_2, consisid, easyanimate's add_noise): convolutions honour strides
    w = torch.randn(4, 3, 3, 3, dtype=torch.float64)
    return f"equal={torch.allclose(F.conv2d(moved, w), F.conv2d(ref, w))}"


def cat_and_concat():
    # torch.concat / torch.cat (wan, chronoedit, kandinsky5 i2i, paint_by_example)
    return f"equal={torch.equal(torch.cat([moved, moved], 1), torch.cat([ref, ref], 1))}"


def slice_assign_and_repeat_view():
    # latents[:, 0:1] = image_latents (kandinsky5 i2v); .repeat(...).view(...) (kolors);
    # mask[..., :n] = 1 then concat then view (wan_animate)
    lat = torch.zeros(2, 3, 16, 16, dtype=torch.float64)
    lat[:, 0:1] = moved[:, 0:1]
    rep = moved.repeat(1, 2, 1, 1).view(2, 6, -1)
    same = torch.equal(lat[:, 0:1], ref[:, 0:1])
    return f"slice copy equal={same}, repeat+view {tuple(rep.shape)}"


def numpy_then_arithmetic():
    # .cpu().numpy() * 255 / np.clip / np.percentile / np.ascontiguousarray (bria, cosmos,
    # marigold, hailo, ultralytics plotting): numpy reads strides; PIL.Image.fromarray copies a
    # strided array through tobytes()
    a = moved.cpu().numpy()
    b = (a * 255).astype(np.uint8)
    same = np.array_equal(b, (ref.numpy() * 255).astype(np.uint8))
    c = np.ascontiguousarray(b)
    return (f"numpy strided={not a.flags['C_CONTIGUOUS']}, values equal={same}, "
            f"np.ascontiguousarray C-contiguous={c.flags['C_CONTIGUOUS']}")


def permute_reshape_argsort():
    # pixels.permute(...).reshape(...) (ltx2), argsort of logits.t().cpu() (open_clip train)
    logits = torch.randn(5, 7)
    moved_t = logits.t().detach().cpu()
    same = torch.equal(torch.argsort(moved_t, descending=True),
                       torch.argsort(moved_t.contiguous(), descending=True))
    reshaped = moved.permute(0, 2, 1, 3).reshape(2, 16, -1)
    return f"reshape {tuple(reshaped.shape)}, argsort equal={same}"


def interpolate_solve_tolist():
    # F.interpolate (kornia naflex), torch.linalg.solve of w.T (peft frod), tolist (kornia laf)
    up = torch.equal(F.interpolate(moved, size=(8, 8), mode="bilinear"),
                     F.interpolate(ref, size=(8, 8), mode="bilinear"))
    v = torch.randn(6, 6, dtype=torch.float64).t().cpu()
    w = torch.randn(4, 6, dtype=torch.float64)
    solved = torch.allclose(torch.linalg.solve(v, w.T), torch.linalg.solve(v.contiguous(), w.T))
    listed = moved[0, :, 0, :2].tolist() == ref[0, :, 0, :2].tolist()
    return f"interpolate equal={up}, solve equal={solved}, tolist equal={listed}"


if __name__ == "__main__":
    outcome("device copy of a permuted tensor", strides_kept)
    outcome("conv (vae.encode etc.)", conv_vae_encode)
    outcome("cat / concat", cat_and_concat)
    outcome("slice assignment, repeat + view", slice_assign_and_repeat_view)
    outcome("numpy, then numpy arithmetic", numpy_then_arithmetic)
    outcome("permute + reshape, argsort", permute_reshape_argsort)
    outcome("interpolate, linalg.solve, tolist", interpolate_solve_tolist)
