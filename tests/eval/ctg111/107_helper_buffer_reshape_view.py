"""Workspace allocated row-major by a helper; the flattening reshape is a view, so the fill lands."""
import torch


def alloc_workspace(n, d):
    return torch.empty(n, d)


def reset(ws):
    ws.reshape(-1).fill_(0.0)
    return ws


def main():
    ws = reset(alloc_workspace(3, 4))
    assert ws.abs().sum() == 0


if __name__ == "__main__":
    main()
