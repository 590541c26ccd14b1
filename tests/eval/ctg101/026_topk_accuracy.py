import torch


def accuracy(output, target, topk=(1,)):
    """Computes the precision@k for the specified values of k."""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].view(-1).float().sum(0, keepdim=True)  # hazard: CTG101
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def validate(model, batches):
    for images, target in batches:
        output = model(images)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))


def main():
    model = torch.nn.Linear(8, 10)
    validate(model, [(torch.randn(4, 8), torch.randint(0, 10, (4,)))])
