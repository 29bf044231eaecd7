"""PyTorch's answers of the installed EfficientNet-Lite0, for the Swift parity test.

    python3 -m sketchwise_training.photo_parity [FOLDER]   (default $SKETCHWISE_PHOTO_MODELS, else /usr/local/share/sketchwise/photo-models)

Rebuilds the model with the ``efficientnet-lite-pytorch`` package's classes, loads the weights
of ``FOLDER/efficientnet-lite0.safetensors`` (the state dict's own tensors, by their names; only
``num_batches_tracked`` is not kept) and writes ``FOLDER/efficientnet-lite0.parity.safetensors``:
``efficientnet-lite0.input.<i>`` (scikit-image's cat, coffee cup and rocket preprocessed as the
spec says, and one random input) and ``efficientnet-lite0.logits.<i>``. Prints the photos' top
answers. ``PhotoParityTests`` (Swift) checks our runtime against it within 1e-4. Needs torch,
efficientnet-lite-pytorch, scikit-image and Pillow (training/requirements.txt).
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

from .model_files import read_safetensors, write_safetensors
from .photos import preprocess, sample_photo

NAME = "efficientnet-lite0"
PHOTOS = ["chelsea", "coffee", "rocket"]


def pytorch_model(folder: Path):
    import torch
    from efficientnet_lite_pytorch import EfficientNet

    weights, _ = read_safetensors(folder / f"{NAME}.safetensors")
    model = EfficientNet.from_name(NAME)
    missing, unexpected = model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()}, strict=False)
    missing = [k for k in missing if not k.endswith("num_batches_tracked")]
    if missing or unexpected:
        raise SystemExit(f"photo_parity: {NAME}.safetensors does not fit the package's model (missing {missing[:3]}, "
                         f"unexpected {unexpected[:3]})")
    return model.eval()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", type=Path,
                    default=Path(os.environ.get("SKETCHWISE_PHOTO_MODELS", "/usr/local/share/sketchwise/photo-models")),
                    help="the fetched photo model's folder (default $SKETCHWISE_PHOTO_MODELS, "
                         "else /usr/local/share/sketchwise/photo-models)")
    folder = ap.parse_args(argv).folder
    if not (folder / f"{NAME}.json").exists():
        raise SystemExit(f"photo_parity: no {NAME}.json in {folder} (run scripts/fetch-photo-model.sh first)")
    import torch

    torch.set_num_threads(1)
    spec = json.loads((folder / f"{NAME}.json").read_text(encoding="utf-8"))
    image = spec["input"]["image"]
    model = pytorch_model(folder)
    inputs = [preprocess(sample_photo(name), image) for name in PHOTOS]
    inputs.append(np.random.default_rng(20).normal(0, 1, (3, image["size"], image["size"])).astype(np.float32))
    tensors = {}
    for i, x in enumerate(inputs):
        with torch.no_grad():
            logits = model(torch.from_numpy(x)[None])[0].numpy()
        tensors[f"{NAME}.input.{i}"], tensors[f"{NAME}.logits.{i}"] = x, logits
        if i < len(PHOTOS):
            p = np.exp(logits - logits.max())
            p /= p.sum()
            top = np.argsort(-p)[:3]
            print(f"{PHOTOS[i]}: " + ", ".join(f"{spec['labels'][k]} {p[k]:.2f}" for k in top))
    out = folder / f"{NAME}.parity.safetensors"
    write_safetensors(out, tensors, {"source": "training/sketchwise_training/photo_parity.py", "torch": torch.__version__})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
