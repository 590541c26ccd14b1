"""Detector that clones one image's boxes in a helper method before saving."""
import io

import torch


class Detector:
    def predict(self, n_images):
        return torch.rand(n_images, 300, 4)

    def first_boxes(self):
        return self.predict(16)[0].clone()

    def save_first(self, f):
        torch.save({"boxes": self.first_boxes()}, f)


def main():
    Detector().save_first(io.BytesIO())


if __name__ == "__main__":
    main()
