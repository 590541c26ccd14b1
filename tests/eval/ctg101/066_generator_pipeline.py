import torch


def decode_images(raw_batches):
    for raw in raw_batches:
        hwc = raw.float() / 255.0
        yield hwc.permute(2, 0, 1)


def normalize(chw, mean=0.5, std=0.25):
    return (chw - mean) / std


def featurize(stream):
    feats = []
    for chw in stream:
        x = normalize(chw)
        feats.append(x.view(-1))  # hazard: CTG101
    return torch.stack(feats)


def main():
    raws = [torch.randint(0, 256, (4, 4, 3), dtype=torch.uint8) for _ in range(2)]
    featurize(decode_images(raws))
