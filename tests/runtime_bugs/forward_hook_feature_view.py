"""A feature-extraction forward hook (registered in user code) flattens an LSTM's
batch_first output with .view(); torch calls the hook, the view raises inside it."""
import torch
from torch import nn

features = {}


def save_features(module, inputs, output):
    states, _ = output
    features["lstm"] = states.view(states.size(0), -1)  # bug-line: CTG101


encoder = nn.LSTM(8, 16, batch_first=True)
encoder.register_forward_hook(save_features)
encoder(torch.randn(3, 5, 8))
