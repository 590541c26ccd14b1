"""demucs 4.1.0: CTG104 demucs/audio.py:240 (encode_wav float path) and demucs/evaluate.py:107
(mix = mix.to(solver.device) of a transposed musdb track).

lameenc (an MP3 encoder extension) is stubbed: the flagged paths never encode MP3. evaluate.py
needs musdb/museval/dora, so its three lines before apply_model are repeated here on a track-shaped
array, then fed to the real demucs apply_model with a small randomly initialised HTDemucs.
"""
import random
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch as th

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import report, stub_module, use_packages  # noqa: E402

th.manual_seed(0)
use_packages("demucs")
stub_module("lameenc")
from demucs.apply import apply_model  # noqa: E402
from demucs.audio import convert_audio, encode_wav  # noqa: E402
from demucs.htdemucs import HTDemucs  # noqa: E402


def wav_bytes():
    wav = th.randn(2, 1000) * 0.3
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "x.wav"
        encode_wav(wav, p, 44100, as_float=True)
        raw = p.read_bytes()
    data = raw[raw.index(b"data") + 8:]
    got = np.frombuffer(data, dtype="<f4").reshape(-1, 2)  # WAV frames are interleaved (T, C)
    return (f".t().cpu() stride={wav.t().cpu().stride()}; data chunk equals interleaved samples="
            f"{np.array_equal(got, wav.clamp(-1, 1).t().numpy())} (ndarray.tobytes() is C order)")


report("CTG104 audio.py:240 wav.clamp(-1,1).t().cpu().numpy().astype('<f4').tobytes()", wav_bytes)


def eval_mix():
    model = HTDemucs(sources=["drums", "bass"], channels=8, depth=2, t_layers=1, segment=1)
    model.eval()
    audio = np.random.RandomState(0).randn(44100, 2).astype(np.float32)  # musdb track.audio (T, C)
    outs = []
    for contig in (False, True):
        mix = th.from_numpy(audio).t().float()
        if contig:
            mix = mix.contiguous()
        mix = mix.to("cpu")
        s = mix.stride()
        ref = mix.mean(dim=0)
        mix = (mix - ref.mean()) / ref.std()
        mix = convert_audio(mix, 44100, model.samplerate, model.audio_channels)
        random.seed(0)  # apply_model draws a random time shift when shifts > 0
        with th.no_grad():
            outs.append((s, apply_model(model, mix[None], shifts=1, split=True, overlap=0.25)[0]))
    return (f"mix strides {outs[0][0]} vs {outs[1][0]}; separated estimates equal="
            f"{th.equal(outs[0][1], outs[1][1])} (max diff {(outs[0][1]-outs[1][1]).abs().max():.2e})")


report("CTG104 evaluate.py:107 mix = mix.to(solver.device)", eval_mix)
