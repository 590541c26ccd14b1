import torch
from torch import nn


def feature_map_to_vector(x, channels_last=True):
    if channels_last:
        x = x.permute(0, 2, 3, 1)
    b = x.size(0)
    return x.view(b, -1)  # hazard: CTG101


class Classifier(nn.Module):
    def __init__(self, channels, h, w, classes):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.fc = nn.Linear(channels * h * w, classes)

    def forward(self, img):
        feats = torch.relu(self.conv(img))
        return self.fc(feature_map_to_vector(feats))


def main():
    clf = Classifier(4, 6, 6, 3)
    print(clf(torch.randn(2, 3, 6, 6)).shape)
