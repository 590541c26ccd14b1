import torch
from torch import nn


class FeatureExtractor:
    def __init__(self, model, layer_names):
        self.features = {}
        for name, module in model.named_modules():
            if name in layer_names:
                module.register_forward_hook(self._make_hook(name))

    def _make_hook(self, name):
        def hook(module, inputs, output):
            self.features[name] = output.permute(0, 2, 3, 1)
        return hook

    def pooled(self):
        out = {}
        for name, f in self.features.items():
            b, h, w, c = f.shape
            out[name] = f.view(b, h * w, c).mean(1)
        return out

    def flat(self, name):
        f = self.features[name]
        return f.view(f.size(0), -1)  # hazard: CTG101


def main():
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 6, 3, padding=1))
    ext = FeatureExtractor(model, {"0", "2"})
    model(torch.randn(2, 3, 5, 5))
    print({k: v.shape for k, v in ext.pooled().items()})
    print(ext.flat("2").shape)
