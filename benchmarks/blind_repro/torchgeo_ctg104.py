"""torchgeo 0.8.1: CTG104 torchgeo/datasets/substation.py:180 and :182 (Substation.plot:
sample['image'][...][:3].permute(1, 2, 0).cpu().numpy()).

substation.py needs matplotlib/rasterio (not installed), so plot()'s image lines are repeated on a
sample of the dataset's shapes; the array then only goes through `image / 255.0` and
matplotlib's imshow, which takes it through NumPy (stride-aware; its C++ resampler receives
arrays through pybind11 with c_style|forcecast, i.e. a C-ordered copy when needed). Checked here:
the NumPy values are the logical (H, W, C) image before and after the division.
"""
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import report  # noqa: E402

torch.manual_seed(0)


def plot_image(timepoints):
    img = torch.randint(0, 256, (timepoints, 13, 228, 228)).float() if timepoints else \
        torch.randint(0, 256, (13, 228, 228)).float()
    sample = {"image": img}
    if len(sample["image"].shape) == 4:
        image = sample["image"][0][:3].permute(1, 2, 0).cpu().numpy()
        ref = img[0, :3]
    else:
        image = sample["image"][:3].permute(1, 2, 0).cpu().numpy()
        ref = img[:3]
    strides = image.strides
    image = image / 255.0
    ok = all(np.array_equal(image[..., c], ref[c].numpy() / 255.0) for c in range(3))
    return (f"numpy strides={strides}; image/255 C-contiguous={image.flags['C_CONTIGUOUS']}; channel planes "
            f"equal the tensor's RGB bands={ok}; np.asarray (what imshow does) keeps them={np.array_equal(np.asarray(image), image)}")


report("CTG104 substation.py:180 sample['image'][0][:3].permute(1, 2, 0).cpu().numpy()", lambda: plot_image(4))
report("CTG104 substation.py:182 sample['image'][:3].permute(1, 2, 0).cpu().numpy()", lambda: plot_image(0))
