"""Re-creation of pytorch/torchtitan PR #3514 ("[tests] Add HF checkpoint
round-trip test + per-model adapter fixes"), llama4 ``state_dict_adapter.to_hf``:
"we transpose the expert weights for torchtitan optimization purpose;
.contiguous() so safetensors can serialize the view."

``to_hf`` returns ``value.transpose(-1, -2)`` for the grouped expert weight;
the HF-format checkpoint writer then calls ``safetensors.torch.save_file`` ->
"You are trying to save a non contiguous tensor ...".
"""
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import safetensors.torch
import torch


class Llama4StateDictAdapter:
    to_hf_map = {
        "layers.{}.moe.experts.w2": "model.layers.{}.feed_forward.experts.down_proj",
        "layers.{}.attention.wq.weight": "model.layers.{}.self_attn.q_proj.weight",
    }

    def to_hf(self, state_dict):
        hf_state_dict = {}
        for key, value in state_dict.items():
            layer = key.split(".")[1]
            abstract_key = key.replace(f".{layer}.", ".{}.", 1)
            if abstract_key in self.to_hf_map:
                if abstract_key == "layers.{}.moe.experts.w2":
                    # we transpose the expert weights for torchtitan optimization purpose
                    # .contiguous() so safetensors can serialize the view.
                    value = value.transpose(-1, -2).contiguous()
                hf_state_dict[self.to_hf_map[abstract_key].format(layer)] = value
        return hf_state_dict


def save_hf_checkpoint(state_dict, adapter, out_dir):
    hf_sd = adapter.to_hf(state_dict)
    path = os.path.join(out_dir, "model-00001-of-00001.safetensors")
    safetensors.torch.save_file(hf_sd, path, metadata={"format": "pt"})
    return path


def main():
    torch.manual_seed(0)
    sd = {
        "layers.0.moe.experts.w2": torch.randn(4, 16, 8),      # [E, hidden, dim] (titan layout)
        "layers.0.attention.wq.weight": torch.randn(8, 8),
    }
    path = save_hf_checkpoint(sd, Llama4StateDictAdapter(), tempfile.mkdtemp())
    loaded = safetensors.torch.load_file(path)
    down = loaded["model.layers.0.feed_forward.experts.down_proj"]
    if not torch.equal(down, sd["layers.0.moe.experts.w2"].transpose(-1, -2)):
        raise AssertionError("wrong values")
    print("ok", tuple(down.shape))


if __name__ == "__main__":
    main()
