import torch


def accuracy(output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].view(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


class Meter:
    def __init__(self):
        self.total = 0.0

    def update(self, output, target):
        (top1,) = accuracy(output, target)
        self.total += top1.item()


def main():
    meter = Meter()
    model = torch.nn.Linear(8, 10)
    meter.update(model(torch.randn(4, 8)), torch.randint(0, 10, (4,)))
