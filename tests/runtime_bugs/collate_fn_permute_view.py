"""A custom collate_fn stacks HWC samples and permutes the batch to NCHW (the default collate
would return a contiguous batch, measured); the model's flatten uses .view() and raises.
The batch layout arrives through the DataLoader."""
import torch
from torch import nn
from torch.utils.data import DataLoader


def collate(samples):
    images = torch.stack([image for image, _ in samples])
    return images.permute(0, 3, 1, 2)[:, :, 1:], torch.tensor([label for _, label in samples])


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3 * 7 * 8, 10)

    def forward(self, images):
        return self.fc(images.view(images.size(0), -1))  # bug-line: CTG101


data = [(torch.rand(8, 8, 3), i % 10) for i in range(8)]
model = Classifier()
for images, labels in DataLoader(data, batch_size=4, collate_fn=collate):
    model(images)
