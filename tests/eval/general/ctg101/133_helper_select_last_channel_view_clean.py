import torch
from torch import nn


def objectness_channel(pred):
    """pred: (batch, anchors, 5 + classes); returns the objectness logit."""
    return pred[..., 4]


class YoloLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.bce = nn.BCEWithLogitsLoss()

    def forward(self, pred, target_obj):
        obj = objectness_channel(pred)
        return self.bce(obj.view(-1), target_obj.view(-1))


def main():
    loss = YoloLoss()
    pred = torch.randn(2, 12, 9)
    target = (torch.rand(2, 12) > 0.7).float()
    print(loss(pred, target))
