"""vocos 0.1.0: CTG102 vocos/discriminators.py:200 (x.append(band) in
MultiBandDiscriminator's per-resolution DiscriminatorR.forward).

discriminators.py is imported bare; torchaudio (not installed) is stubbed with a Spectrogram
that does what torchaudio's does for power=None: a complex torch.stft with a Hann window.
"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, report, stub_module  # noqa: E402

torch.manual_seed(0)


class Spectrogram(torch.nn.Module):  # torchaudio.transforms.Spectrogram(power=None) stand-in
    def __init__(self, n_fft, hop_length, win_length, power=None):
        super().__init__()
        self.n_fft, self.hop, self.win = n_fft, hop_length, win_length
        self.register_buffer("window", torch.hann_window(win_length))

    def forward(self, x):
        shape = x.shape
        s = torch.stft(x.reshape(-1, shape[-1]), self.n_fft, self.hop, self.win, self.window,
                       center=True, pad_mode="reflect", return_complex=True)
        return s.reshape(*shape[:-1], *s.shape[-2:])


stub_module("torchaudio.transforms", Spectrogram=Spectrogram)
disc = bare_import("vocos", "vocos.discriminators")


def run():
    d = disc.DiscriminatorR(window_length=512)
    x = torch.randn(2, 8192)
    seen = []
    bands = d.spectrogram(x)
    info_in = [(b.is_contiguous(), b.stride()) for b in bands]
    out, fmap = d(x)
    # what is appended at line 200 is `band` after the conv stack: reproduce the loop and check it
    for band, stack in zip(d.spectrogram(x), d.band_convs):
        for layer in stack:
            band = torch.nn.functional.leaky_relu(layer(band), 0.1)
        seen.append((band.is_contiguous(memory_format=torch.channels_last),
                     band.untyped_storage().nbytes() == band.numel() * band.element_size()))
    return (f"spectrogram band slices (input) contiguous/stride={info_in[:2]}...; the appended `band` "
            f"(leaky_relu(conv(...)) output) (channels_last-dense, owns exactly its storage)={seen}; forward out {tuple(out.shape)}")


report("CTG102 discriminators.py:200 x.append(band)", run)
