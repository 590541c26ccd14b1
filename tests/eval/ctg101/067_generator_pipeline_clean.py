import torch


def decode_images(raw_batches):
    for raw in raw_batches:
        hwc = raw.float() / 255.0
        yield hwc.permute(2, 0, 1).contiguous()


def normalize(chw, mean=0.5, std=0.25):
    return (chw - mean) / std


def featurize(stream):
    return torch.stack([normalize(chw).view(-1) for chw in stream])


def main():
    raws = [torch.randint(0, 256, (4, 4, 3), dtype=torch.uint8) for _ in range(2)]
    featurize(decode_images(raws))
