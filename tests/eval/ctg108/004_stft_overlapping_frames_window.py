"""Hand-rolled STFT: overlapping frames windowed in place."""
import torch


def frames(wave, win, hop):
    return wave.unfold(-1, win, hop)


def windowed_frames(wave, win=16, hop=4):
    f = frames(wave, win, hop)
    f.mul_(torch.hann_window(win))  # hazard: CTG108
    return f


def main():
    f = windowed_frames(torch.randn(2, 64))
    assert f.shape == (2, 13, 16)


if __name__ == "__main__":
    main()
