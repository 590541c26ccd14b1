"""A bidirectional batch_first GRU feeds a per-step classifier through reshape(): the output
is not contiguous (measured), so every training step pays a full copy of the activations."""
import torch
from torch import nn

gru = nn.GRU(16, 32, batch_first=True, bidirectional=True)
classifier = nn.Linear(64, 5)
for step in range(3):
    states, _ = gru(torch.randn(4, 12, 16))
    logits = classifier(states.reshape(-1, 64))  # bug-line: CTG201
