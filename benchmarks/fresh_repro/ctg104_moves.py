"""CTG104 findings outside botorch: what the moved, still-strided tensor goes to.

Excerpts (quoted minimally, package/path named per case) run with realistic inputs; Pillow from the
deps folder (`pip install --no-deps --target <cache>/deps pillow==11.3.0`), which common.py puts on
sys.path. On this CPU machine .to(device)/.cpu() are same-device; a cross-device copy keeps the
same strides (preserve_format), which is what each check uses.
"""
import numpy as np
import torch
import torch.nn.functional as F
from common import use_packages

use_packages()
from PIL import Image

torch.manual_seed(0)

print("== flair 0.15.1 flair/embeddings/image.py:246 `y = y.type(torch.float32).to(flair.device)`")
h, w, d = 3, 5, 8
position_features = torch.nn.Linear(2, d)
y = torch.stack([torch.cat([torch.arange(h).unsqueeze(1)] * w, dim=1), torch.cat([torch.arange(w).unsqueeze(0)] * h, dim=0)])
y = y.view([2, h * w]).transpose(1, 0)
y = y.type(torch.float32).to("cpu", memory_format=torch.preserve_format)
print(f"  moved y stride {y.stride()} contiguous {y.is_contiguous()}")
out = position_features(y).transpose(1, 0).view([d, h, w])
ref = position_features(y.contiguous()).transpose(1, 0).view([d, h, w])
print(f"  next: Linear (honours strides) then transpose/view of its fresh output: runs, equal to contiguous input {torch.allclose(out, ref)}")

print("== mmengine 0.10.7 mmengine/utils/dl_utils/misc.py:75 `imgs = tensor.detach().cpu().numpy()` (tensor2imgs)")
t = torch.rand(2, 3, 6, 7)
mean = t.new_tensor((0.5, 0.5, 0.5)).view(1, -1); std = t.new_tensor((0.2, 0.2, 0.2)).view(1, -1)
tt = t.permute(0, 2, 3, 1) * std + mean
imgs = tt.detach().cpu().numpy()
print(f"  numpy strides {imgs.strides} C-contiguous {imgs.flags['C_CONTIGUOUS']}")
imgs = imgs[:, :, :, (2, 1, 0)]
imgs = [np.ascontiguousarray(img) for img in imgs]
print(f"  next lines: fancy-index RGB2BGR (a copy) then np.ascontiguousarray: returned arrays C-contiguous {[i.flags['C_CONTIGUOUS'] for i in imgs]}")

print("== unsloth studio/backend/core/inference/diffusion_upscalers.py:507 `... [0].permute(1, 2, 0).cpu().numpy()`")
yy = torch.rand(1, 3, 9, 11)
out = (yy.clamp(0, 1) * 255.0).round().to(torch.uint8)[0].permute(1, 2, 0).cpu().numpy()
img = Image.fromarray(out, mode="RGB")
ref = Image.fromarray(np.ascontiguousarray(out), mode="RGB")
print(f"  numpy C-contiguous {out.flags['C_CONTIGUOUS']}; next: Image.fromarray(out, mode='RGB'): same pixels as from a contiguous array {img.tobytes() == ref.tobytes()}")

print("== unsloth studio/backend/core/training/diffusion_samples.py:270 `arr = arr.permute(0, 2, 3, 1).cpu().numpy()` (to_pil)")
images = torch.rand(2, 3, 9, 11) * 2 - 1
arr = ((images.clamp(-1, 1) + 1) * 127.5).round().to(dtype=torch.uint8)
arr = arr.permute(0, 2, 3, 1).cpu().numpy()
pils = [Image.fromarray(a) for a in arr]
print(f"  numpy C-contiguous {arr.flags['C_CONTIGUOUS']}; next: Image.fromarray per image: same pixels as contiguous "
      f"{all(p.tobytes() == Image.fromarray(np.ascontiguousarray(a)).tobytes() for p, a in zip(pils, arr))}")

print("== unsloth diffusion_dit_trainer.py:2042 `.to(device)` / diffusion_lora_trainer.py:258 `tensor.unsqueeze(0).to(device, dtype=torch.float32)`")
# _to_unit_tensor (diffusion_dit_trainer.py:1941): torch.from_numpy(arr).permute(2, 0, 1) * 2.0 - 1.0
arr = np.asarray(np.random.randint(0, 255, (16, 16, 3)), dtype=np.float32) / 255.0
px = (torch.from_numpy(arr).permute(2, 0, 1) * 2.0 - 1.0).unsqueeze(0).to("cpu", dtype=torch.float32)
conv = torch.nn.Conv2d(3, 8, 3, padding=1)   # stands for vae.encode's first convolution
print(f"  moved pixels stride {px.stride()} contiguous {px.is_contiguous()} (channels-last); next: vae.encode (convolutions): "
      f"equal to contiguous input {torch.allclose(conv(px), conv(px.contiguous()), atol=1e-6)}")
