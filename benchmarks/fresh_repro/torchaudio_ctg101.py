"""CTG101 torchaudio 2.11.1 torchaudio/models/tacotron2.py:570 `decoder_inputs = decoder_inputs.view(`
in _Decoder._parse_decoder_inputs: (n_batch, n_mels, T).transpose(1, 2).view(n_batch, T / n_frames_per_step, -1).
Imports the pinned torchaudio tree's tacotron2.py module file directly (pure Python + torch).
"""
import importlib.util
import torch
from common import tree, report

spec = importlib.util.spec_from_file_location("tacotron2", tree("torchaudio") / "torchaudio/models/tacotron2.py")
try:
    T2 = importlib.util.module_from_spec(spec); spec.loader.exec_module(T2)
except Exception as e:
    print("import failed:", e); raise

torch.manual_seed(0)
for nfps in (1, 2, 3):
    model = T2.Tacotron2(n_mels=80, n_frames_per_step=nfps).eval()
    dec = model.decoder
    mel = torch.randn(2, 80, 12)
    print(f"  n_frames_per_step={nfps}: transposed mel contiguous {mel.transpose(1, 2).is_contiguous()}")
    report(f"    _parse_decoder_inputs(mel (2, 80, 12))", lambda: tuple(dec._parse_decoder_inputs(mel).shape))
    if nfps == 1:
        tokens = torch.randint(0, 100, (2, 9)); tl = torch.tensor([9, 7])
        report("    Tacotron2.forward (teacher forcing, reaches the line)",
               lambda: tuple(model(tokens, tl, mel, torch.tensor([12, 10]))[0].shape))
