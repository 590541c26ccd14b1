import torch


def attention_bias(scores, bias):
    b = bias.unsqueeze(0).expand(scores.size(0), -1, -1)
    torch.sigmoid_(b)  # hazard: CTG108
    return scores + b


def main():
    print(attention_bias(torch.randn(2, 3, 3), torch.randn(3, 3)).shape)
