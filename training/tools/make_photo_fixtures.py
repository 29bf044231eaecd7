#!/usr/bin/env python3
"""Parity fixture of the EfficientNet-Lite import: a tiny model with random weights.

    python3 training/tools/make_photo_fixtures.py [output-dir]   (default Tests/SketchwiseNNTests/Fixtures/photo)

Builds a narrow EfficientNet-Lite0 with the ``efficientnet-lite-pytorch`` package's own classes
(width 0.1, depth 0.5, expansion 2 instead of 6, 40×40 inputs, 10 classes: 10 blocks, TensorFlow
"same" padding both symmetric and asymmetric, residual adds), gives every weight and batch-norm
statistic random values, and writes

* ``tiny.pth``: its state dict in torch's legacy layout, the layout of the published weights;
* ``tiny.json`` + ``tiny.safetensors``: that file imported by ``import_model.import_pytorch``;
* ``expected.safetensors``: PyTorch's logits (``tiny.logits.<i>``) for a few inputs
  (``tiny.input.<i>``: two random ones and scikit-image's cat photo, preprocessed as the spec says).

Needs torch, efficientnet-lite-pytorch, scikit-image and Pillow. Deterministic.
"""
from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import torch

from sketchwise_training import efficientnet_import as eff
from sketchwise_training import import_model as im
from sketchwise_training.model_files import write_safetensors
from sketchwise_training.photos import preprocess, sample_photo

ROOT = Path(__file__).resolve().parents[2]

ARCHITECTURE = eff.Architecture(depth=0.5, image_size=40)
CLASSES = [f"class {i}" for i in range(10)]


def tiny_model() -> torch.nn.Module:
    from efficientnet_lite_pytorch import EfficientNet
    from efficientnet_lite_pytorch.utils import get_model_params

    blocks, params = get_model_params("efficientnet-lite0", {
        "width_coefficient": 0.1, "depth_coefficient": ARCHITECTURE.depth, "image_size": ARCHITECTURE.image_size,
        "num_classes": len(CLASSES), "fix_head_stem": False})
    blocks = [b._replace(expand_ratio=min(b.expand_ratio, 2)) for b in blocks]
    torch.manual_seed(20)
    model = EfficientNet(blocks, params)
    with torch.no_grad():
        for name, t in model.state_dict().items():
            if not t.is_floating_point():
                continue  # num_batches_tracked
            if name.endswith("running_var"):
                t.uniform_(0.5, 2.0)
            elif name.endswith(("running_mean", "bias")):
                t.normal_(0, 0.2)
            elif t.dim() == 1:  # batch-norm gamma
                t.uniform_(0.5, 1.5)
            else:  # convolution and dense weights, scaled to keep the activations near 1
                t.normal_(0, 1.5 / t[0].numel() ** 0.5)
    return model.eval()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", type=Path, default=ROOT / "Tests/SketchwiseNNTests/Fixtures/photo", metavar="OUTPUT-DIR",
                    help="default Tests/SketchwiseNNTests/Fixtures/photo")
    out = ap.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    model = tiny_model()
    torch.save(model.state_dict(), out / "tiny.pth", _use_new_zipfile_serialization=False)
    with tempfile.TemporaryDirectory() as tmp:
        labels = Path(tmp) / "labels.json"
        labels.write_text(json.dumps(CLASSES))
        im.import_pytorch(out / "tiny.pth", "tiny", out, labels, ARCHITECTURE, package="(test fixture)",
                          licence="random weights, no licence needed", description="tiny EfficientNet-Lite, random weights")
    spec = json.loads((out / "tiny.json").read_text())
    rng = np.random.default_rng(20)
    size = ARCHITECTURE.image_size
    inputs = [rng.normal(0, 1, (3, size, size)).astype(np.float32), rng.uniform(-1, 1, (3, size, size)).astype(np.float32),
              preprocess(sample_photo("chelsea"), spec["input"]["image"])]
    tensors = {}
    for i, x in enumerate(inputs):
        with torch.no_grad():
            tensors[f"tiny.logits.{i}"] = model(torch.from_numpy(x)[None])[0].numpy()
        tensors[f"tiny.input.{i}"] = x
    write_safetensors(out / "expected.safetensors", tensors, {"source": "training/tools/make_photo_fixtures.py"})
    sizes = ", ".join(f"{p.name} {p.stat().st_size // 1024} KB" for p in sorted(out.iterdir()))
    print(f"{out}: {sizes}")


if __name__ == "__main__":
    main()
