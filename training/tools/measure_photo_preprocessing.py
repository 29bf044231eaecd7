#!/usr/bin/env python3
"""Which preprocessing the EfficientNet-Lite0 weights want, measured on scikit-image's photos.

    python3 training/tools/measure_photo_preprocessing.py MODEL.pth

Runs the package's own model (``efficientnet-lite-pytorch``) on each sample photo of
``photos.SAMPLES`` under each candidate (ImageNet's mean/std or TF-Lite's 0.5/0.5; shorter side
scaled to 256/224 of the input then centre-cropped, or straight to 224) and prints, per
candidate, how many photos get a right top-1 answer and the mean probability of the right
classes. Needs torch, efficientnet-lite-pytorch, scikit-image and Pillow.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from sketchwise_training.photos import SAMPLES, preprocess, sample_photo

CANDIDATES = {
    "imagenet mean/std, 256 + crop 224": {"mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225], "resize": 256},
    "imagenet mean/std, 224": {"mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225], "resize": 224},
    "0.5/0.5, 256 + crop 224": {"mean": [0.5] * 3, "std": [0.5] * 3, "resize": 256},
    "0.5/0.5, 224": {"mean": [0.5] * 3, "std": [0.5] * 3, "resize": 224},
    "tflite 127/128, 256 + crop 224": {"mean": [127 / 255] * 3, "std": [128 / 255] * 3, "resize": 256},
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pth", type=Path, metavar="MODEL.pth", help="the published EfficientNet-Lite0 weights")
    pth = ap.parse_args(argv).pth
    from efficientnet_lite_pytorch import EfficientNet

    model = EfficientNet.from_pretrained("efficientnet-lite0", weights_path=str(pth)).eval()
    photos = {name: sample_photo(name) for name in SAMPLES}
    for label, candidate in CANDIDATES.items():
        hits, right = 0, []
        for name, accepted in SAMPLES.items():
            x = torch.from_numpy(preprocess(photos[name], {"size": 224, **candidate}))
            with torch.no_grad():
                p = torch.softmax(model(x[None])[0], 0).numpy()
            hits += int(p.argmax()) in accepted
            right.append(float(p[list(accepted)].sum()))
        print(f"{label:34s} top-1 right {hits}/{len(SAMPLES)}, mean probability of the right classes "
              f"{np.mean(right):.3f} ({', '.join(f'{n} {r:.2f}' for n, r in zip(SAMPLES, right))})")


if __name__ == "__main__":
    main()
