"""Mixed precision: clamping the half-precision state through a float32 `.to()` copy."""
import torch


class Scaler:
    def __init__(self):
        self.state = torch.randn(4, 3, dtype=torch.float16).t()

    def clamp_state(self, limit):
        self.state.to(torch.float32).clamp_(-limit, limit)  # hazard: CTG111


def main():
    Scaler().clamp_state(0.5)


if __name__ == "__main__":
    main()
