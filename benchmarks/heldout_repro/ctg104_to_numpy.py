"""CTG104 on the held-out corpus, the line judged after the policy read both corpora:
kornia/image/image.py Image.to_numpy, `return self.data.cpu().detach().numpy()`.

Run with the pinned kornia: a channels-last (HWC) image converted with to_rgb() stores permuted
data (image.py permutes to CHW, converts, permutes back), so to_numpy hands the caller an HWC
array whose memory is channel-planar. numpy reads its strides (values are right); OpenCV's
in-place drawing, the usual next step for an HWC uint8 image, rejects it. OpenCV comes from the
deps folder (`pip install --no-deps --target <cache>/deps opencv-python-headless`); without it
that case says so.
Run: python benchmarks/heldout_repro/ctg104_to_numpy.py
"""
import numpy as np

from common import outcome, use_packages

use_packages("kornia")

from kornia.image import Image  # noqa: E402
from kornia.image.base import ColorSpace  # noqa: E402

bgr = np.random.default_rng(0).integers(0, 255, (6, 5, 3), dtype=np.uint8)
rgb = Image.from_numpy(bgr, color_space=ColorSpace.BGR).to_rgb()  # channels last by default
array = rgb.to_numpy()


def strides_kept():
    return (f"data strides {rgb.data.stride()}, numpy C-contiguous="
            f"{array.flags['C_CONTIGUOUS']}, values equal="
            f"{np.array_equal(array, bgr[..., ::-1])}")


def opencv_draw_in_place():
    try:
        import cv2
    except ImportError:
        return "cv2 not installed (see the docstring)"
    cv2.rectangle(np.ascontiguousarray(array), (0, 0), (2, 2), (255, 0, 0), 1)  # a copy works
    cv2.rectangle(array, (0, 0), (2, 2), (255, 0, 0), 1)
    return "drawn"


if __name__ == "__main__":
    outcome("kornia Image.to_rgb().to_numpy(): strides", strides_kept)
    outcome("kornia Image.to_numpy() then cv2.rectangle in place", opencv_draw_in_place)
