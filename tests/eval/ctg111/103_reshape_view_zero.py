"""RNN state kept layer-major: the flattening reshape is a view and the reset lands."""
import torch


class StatefulRNN:
    def __init__(self, layers, batch, hidden):
        self.h = torch.randn(layers, batch, hidden)

    def reset(self):
        self.h.reshape(-1).zero_()


def main():
    rnn = StatefulRNN(2, 3, 4)
    rnn.reset()
    assert rnn.h.abs().sum() == 0


if __name__ == "__main__":
    main()
