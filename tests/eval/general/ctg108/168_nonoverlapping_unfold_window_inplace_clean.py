import torch


class Framer:
    def __init__(self, win_length=400, hop_length=400):
        self.win_length = win_length
        self.hop_length = hop_length
        self.window = torch.hann_window(win_length)

    def frames(self, wave):
        frames = wave.unfold(-1, 400, 400)
        frames.mul_(self.window)
        return frames

    def energy(self, wave):
        return self.frames(wave).pow(2).sum(-1)


def main():
    framer = Framer()
    wave = torch.randn(2, 4000)
    print(framer.energy(wave).shape)
