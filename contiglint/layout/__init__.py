"""The model of PyTorch layout semantics and the dataflow pass that applies it."""
