import torch
from torch import nn


class ConvToLinear(nn.Module):
    def __init__(self, in_ch, out_ch, length, classes):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, kernel_size=(1, 3), padding=(0, 1))
        self.fc = nn.Linear(out_ch * length, classes)

    def forward(self, x):
        feats = self.conv(x.unsqueeze(2))
        feats = feats.transpose(1, 3).squeeze(2)
        b = feats.size(0)
        return self.fc(feats.view(b, -1))  # hazard: CTG101


def main():
    model = ConvToLinear(4, 6, 10, 3)
    print(model(torch.randn(2, 4, 10)).shape)
