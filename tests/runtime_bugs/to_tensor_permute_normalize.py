"""A torchvision-style to_tensor implemented with permute (HWC uint8 -> CHW float), followed by
a min-max rescaling step that flattens with .view(-1) and raises."""
import torch


def to_tensor(image):
    return image.permute(2, 0, 1).float().div(255)


def rescale(tensor):
    flat = tensor.view(-1)  # bug-line: CTG101
    return (tensor - flat.min()) / (flat.max() - flat.min())


image = torch.randint(0, 256, (24, 32, 3), dtype=torch.uint8)
scaled = rescale(to_tensor(image))
