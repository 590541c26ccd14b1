"""torch-fidelity 0.4.0: CTG104 tests/tf1/primitives/test_convolution.py:25 (img.cpu().numpy() in
save), :70 (x_pt.permute(0, 2, 3, 1).cpu().numpy()) and :71 (conv weight .permute(2, 3, 1, 0)).

The test needs TensorFlow 1.x (tf.Session), which does not exist for this Python, and a dataset
download. The flagged conversions are repeated on tensors of the test's shapes; TF is emulated by
what it does with a NumPy value: tf.constant_initializer -> make_tensor_proto stores
`nparray.tobytes()` (C order, tensor_util.py), and a feed_dict value goes through np.asarray into
a C-contiguous buffer. The layout question is only whether those read the logical values.
"""
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import report  # noqa: E402

torch.manual_seed(0)


def tf_reads(a):
    """What TF1 ingests from a NumPy value: its C-order bytes reshaped to the array's shape."""
    return np.frombuffer(np.asarray(a).tobytes(), dtype=a.dtype).reshape(a.shape)


def nhwc_conv():
    conv = torch.nn.Conv2d(3, 32, 3, stride=2, bias=False)  # Conv2d_1a_3x3 of inception-v3-compat
    conv.requires_grad_(False)  # the feature extractor is frozen
    x_pt = torch.randn(1, 3, 299, 299)
    x_tf = x_pt.permute(0, 2, 3, 1).cpu().numpy()
    w_tf = conv.weight.permute(2, 3, 1, 0).cpu().numpy()
    xs, ws = x_tf.strides, w_tf.strides
    x_in, w_in = tf_reads(x_tf), tf_reads(w_tf)
    # VALID NHWC x HWIO convolution written with numpy on what TF ingested
    patches = np.lib.stride_tricks.sliding_window_view(x_in, (3, 3), axis=(1, 2))[:, ::2, ::2]
    out_tf = np.einsum("bhwcij,ijco->bhwo", patches, w_in)
    out_pt = F.conv2d(x_pt, conv.weight, stride=2).permute(0, 2, 3, 1).detach().numpy()
    return (f"x_tf strides={xs} (not C order), weight_tf strides={ws}; TF's ingested values equal the "
            f"logical arrays={np.array_equal(x_in, x_tf) and np.array_equal(w_in, w_tf)}; NHWC conv on them "
            f"matches torch conv2d (max diff {np.abs(out_tf - out_pt).max():.1e})")


report("CTG104 test_convolution.py:70/71 permute(...).cpu().numpy() fed to TF", nhwc_conv)


def save_img():
    outs = [torch.randn(1, 32, 149, 149).permute(0, 1, 3, 2), torch.randn(1, 32, 149, 149).abs()]
    res = []
    for img in outs:  # every save() call in the test passes a 4-D (B, C, H, W) tensor
        if img.dim() == 4:
            img = img.sum(dim=(0, 1))
        img = img.cpu().numpy()
        res.append(img.flags["C_CONTIGUOUS"])
    return f"img after .sum(dim=(0,1)).cpu().numpy() C-contiguous={res} (sum allocates a fresh row-major result)"


report("CTG104 test_convolution.py:25 img = img.cpu().numpy()", save_img)
