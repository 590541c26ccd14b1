import torch
import torch.nn as nn


def center_crop(fmap, margin):
    return fmap[:, :, margin:-margin, margin:-margin]


class CropHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 4 * 4, 2)

    def forward(self, x):
        f = torch.relu(self.conv(x))
        f = center_crop(f, 2)
        return self.fc(f.view(f.size(0), -1))  # hazard: CTG101


def main():
    CropHead()(torch.randn(2, 3, 8, 8))
