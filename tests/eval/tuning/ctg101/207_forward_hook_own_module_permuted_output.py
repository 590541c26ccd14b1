import torch
from torch import nn


class ToChannelsFirst(nn.Module):
    def forward(self, x):
        return x.permute(0, 2, 1)


class Net(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.embed = nn.Linear(dim, dim)
        self.reorder = ToChannelsFirst()
        self.conv = nn.Conv1d(dim, dim, 1)

    def forward(self, x):
        return self.conv(self.reorder(self.embed(x)))


def install_probe(net, sink):
    def probe(module, inputs, output):
        b, c, t = output.shape
        sink.append(output.view(b, c * t).norm(dim=1))  # hazard: CTG101
    net.reorder.register_forward_hook(probe)


def main():
    net = Net(4)
    seen = []
    install_probe(net, seen)
    print(net(torch.randn(2, 6, 4)).shape, len(seen))
