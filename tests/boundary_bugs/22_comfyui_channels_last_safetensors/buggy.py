"""Re-creation of Comfy-Org/ComfyUI#3923 ("Forcing channels last breaks model
saving"), fixed by PR #3932 ("fix non-contiguous tensor saving (from
channels-last)").

With ``--force-channels-last`` the UNet is moved to channels_last; the
CheckpointSave node builds a state dict and ``save_torch_file`` hands the 4-D
conv weights to ``safetensors.torch.save_file``, which refuses them:
"You are trying to save a non contiguous tensor: `model.diffusion_model.input_blocks.0.0.weight`".
"""
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import safetensors.torch
import torch


class TinyUNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.input_blocks = torch.nn.ModuleList([torch.nn.Sequential(torch.nn.Conv2d(4, 8, 3, padding=1))])
        self.out = torch.nn.Conv2d(8, 4, 1)

    def forward(self, x):
        return self.out(self.input_blocks[0](x))


class ModelPatcher:
    def __init__(self, model, force_channels_last=False):
        self.model = model
        if force_channels_last:
            self.model.to(memory_format=torch.channels_last)

    def state_dict_for_saving(self):
        return {"model.diffusion_model." + k: v for k, v in self.model.state_dict().items()}


def save_torch_file(sd, ckpt, metadata=None):
    if metadata is not None:
        safetensors.torch.save_file(sd, ckpt, metadata=metadata)  # bug-line
    else:
        safetensors.torch.save_file(sd, ckpt)


def save_checkpoint(output_path, patcher, metadata=None):
    sd = patcher.state_dict_for_saving()
    save_torch_file(sd, output_path, metadata=metadata)


def main():
    torch.manual_seed(0)
    patcher = ModelPatcher(TinyUNet(), force_channels_last=True)
    path = os.path.join(tempfile.mkdtemp(), "ckpt.safetensors")
    save_checkpoint(path, patcher, metadata={"format": "pt"})
    loaded = safetensors.torch.load_file(path)
    for k, v in patcher.state_dict_for_saving().items():
        if not torch.equal(loaded[k], v):
            raise AssertionError("wrong values")
    print("ok", len(loaded))


if __name__ == "__main__":
    main()
