import torch
from torch import nn


class ClassificationHead(nn.Module):
    def __init__(self, in_ch=16, num_anchors=3, num_classes=4):
        super().__init__()
        self.num_classes = num_classes
        self.conv = nn.Conv2d(in_ch, in_ch, 3, padding=1)
        self.cls_logits = nn.Conv2d(in_ch, num_anchors * num_classes, 3, padding=1)

    def forward(self, features):
        all_logits = []
        for feat in features:
            logits = self.cls_logits(torch.relu(self.conv(feat)))
            N = logits.shape[0]
            logits = logits.permute(0, 2, 3, 1)
            logits = logits.view(N, -1, self.num_classes)  # hazard: CTG101
            all_logits.append(logits)
        return torch.cat(all_logits, dim=1)


def main():
    head = ClassificationHead()
    head([torch.randn(2, 16, 8, 8), torch.randn(2, 16, 4, 4)])
