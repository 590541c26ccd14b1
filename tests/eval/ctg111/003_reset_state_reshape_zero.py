"""RNN state stored batch-second is reset through a flattening reshape (which copies)."""
import torch


class StatefulRNN:
    def __init__(self, layers, batch, hidden):
        self.h = torch.randn(batch, layers, hidden).transpose(0, 1)

    def reset(self):
        self.h.reshape(-1).zero_()  # hazard: CTG111


def main():
    rnn = StatefulRNN(2, 3, 4)
    rnn.reset()


if __name__ == "__main__":
    main()
