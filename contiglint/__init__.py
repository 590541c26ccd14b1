"""contiglint: find PyTorch memory-layout (contiguity) hazards before they run."""

__version__ = "0.2.0"
