"""Frame-by-frame windowing with a window broadcast over channels, copied each frame."""
import torch


def channel_window(win, channels):
    return win.unsqueeze(0).expand(channels, -1)


def window_frames(audio, n_fft=32, hop=16):
    win = channel_window(torch.hann_window(n_fft), audio.shape[0])
    frames = []
    for start in range(0, audio.shape[1] - n_fft + 1, hop):
        frames.append(audio[:, start:start + n_fft] * win.contiguous())  # hazard: CTG109
    return torch.stack(frames, dim=1)


def main():
    out = window_frames(torch.randn(2, 128))
    assert out.shape == (2, 7, 32)


if __name__ == "__main__":
    main()
