import torch
from torch import nn


class AutoEncoder(nn.Module):
    def __init__(self, channels, latent):
        super().__init__()
        self.enc = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.dec = nn.Linear(channels, latent)

    def encode(self, img):
        return torch.relu(self.enc(img)).permute(0, 2, 3, 1)

    def decode(self, z):
        b, h, w, c = z.shape
        tokens = z.view(b, h * w * c)  # hazard: CTG101
        return self.dec(tokens.view(b, h * w, c))

    def forward(self, img):
        return self.decode(self.encode(img))


def main():
    ae = AutoEncoder(4, 5)
    print(ae(torch.randn(2, 3, 8, 8)).shape)
