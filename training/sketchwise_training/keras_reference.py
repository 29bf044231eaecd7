"""A reference forward pass of a Keras Sequential model in numpy, from the ORIGINAL files.

It works as Keras does (channels-last ``[H, W, C]`` images, kernels ``[kh, kw, in, out]``,
flatten in H·W·C order, the model's own softmax), sharing no code with the converter in
``import_model.py`` beyond reading the files, so the parity fixtures it writes check the
conversion and our runtime together.

    python3 -m sketchwise_training.keras_reference [--models ../shared/models] [--out Tests/SketchwiseNNTests/Fixtures/imported]

writes ``<name>.json`` per public model: synthetic 28×28 inputs (made here, no dataset content),
the original model's probabilities, and which source file they belong to (by sha256). The
weights are never written: the Swift test converts ``../shared/models`` itself and skips
visibly when it is absent.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from sketchwise_data import raster

from . import REPO as ROOT
from . import import_model as im
from .fixtures import fixture_command, synthetic_drawings

SHARED_MODELS = ROOT.parent / "shared" / "models"
#: The public models the fixtures cover: fixture name -> its source below ../shared/models.
SOURCES = {
    "doodlenet": "doodlenet/tfjs",
    "doodlenet-h5": "doodlenet/keras/doodleNet-model.h5",
    "sketcher": "sketcher-100/tfjs",
}


def _activation(x, name):
    if name in (None, "linear"):
        return x
    if name == "relu":
        return np.maximum(x, 0)
    if name == "tanh":
        return np.tanh(x)
    if name == "softmax":
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    raise ValueError(f"activation {name}")


def _conv_same_or_valid(x, kernel, bias, padding):
    """x [H, W, C], kernel [kh, kw, C, O] (stride 1) -> [H', W', O], as Keras computes it."""
    kh, kw = kernel.shape[:2]
    if padding == "same":
        x = np.pad(x, ((kh // 2, kh // 2), (kw // 2, kw // 2), (0, 0)))
    h, w = x.shape[0] - kh + 1, x.shape[1] - kw + 1
    out = np.zeros((h, w, kernel.shape[3]), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.tensordot(x[i:i + h, j:j + w, :], kernel[i, j], axes=([2], [0]))
    return out + bias


def forward(config: dict, weights: dict[str, np.ndarray], image: np.ndarray) -> np.ndarray:
    """The model's output (its probabilities) for one image ``[H, W, 1]`` in float64."""
    x = image.astype(np.float64)

    def w(layer, key):
        return next(weights[n] for n in (f"{layer}/{key}", f"{layer}/{layer}/{key}") if n in weights).astype(np.float64)

    for layer in im.keras_layers(config):
        kind, cfg = layer["class_name"], layer["config"]
        name = cfg["name"]
        if kind == "Conv2D":
            assert tuple(cfg.get("strides", [1, 1])) == (1, 1)
            x = _activation(_conv_same_or_valid(x, w(name, "kernel"), w(name, "bias"), cfg["padding"]), cfg["activation"])
        elif kind == "MaxPooling2D":
            p = cfg["pool_size"][0]
            h, wd = x.shape[0] // p, x.shape[1] // p
            x = x[:h * p, :wd * p].reshape(h, p, wd, p, -1).max(axis=(1, 3))
        elif kind == "Flatten":
            x = x.reshape(-1)  # H·W·C, Keras' order
        elif kind == "Dense":
            x = _activation(x @ w(name, "kernel") + w(name, "bias"), cfg["activation"])
        elif kind in ("Dropout", "InputLayer"):
            pass
        else:
            raise ValueError(f"reference: layer {kind} not covered")
    return x


def source_sha256(src: Path) -> str:
    digest = hashlib.sha256()
    for p in im.source_files(src):
        digest.update(p.read_bytes())
    return digest.hexdigest()


def fixture_images(seed: int = 11) -> list[tuple[str, np.ndarray]]:
    """Synthetic drawings rendered with our recipe (uint8 [28, 28]), plus noise and an empty image."""
    images = [(name, raster.render_channels(strokes, 28, ["ink"])[0]) for name, strokes in synthetic_drawings(seed)]
    rng = np.random.default_rng(seed)
    images.append(("noise", (rng.random((28, 28)) < 0.2).astype(np.uint8) * 255))
    images.append(("empty", np.zeros((28, 28), np.uint8)))
    return images


def write_fixtures(models: Path, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, rel in SOURCES.items():
        src = models / rel
        config, weights = im.read_source(src)
        labels = [line.strip() for line in im.beside(src, "class_names.txt").read_text().splitlines() if line.strip()]
        cases = []
        for cname, img in fixture_images():
            probs = forward(config, weights, img[:, :, None].astype(np.float32) / np.float32(255.0))
            cases.append({"name": cname, "image": img.ravel().tolist(),
                          "probabilities": {labels[i]: float(probs[i]) for i in range(len(labels))}})
        doc = {"model": name, "source": f"../shared/models/{rel}", "sourceSHA256": source_sha256(src),
               "tolerance": 1e-4,
               "note": "28x28 uint8 images (0 background, 255 ink), fed as pixel/255; probabilities of the original "
                       "Keras model computed in numpy from the original files (training/sketchwise_training/keras_reference.py), by the "
                       "model's own label names",
               "cases": cases}
        p = out / f"{name}.json"
        p.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        written.append(p)
    return written


def main(argv=None):
    fixture_command(argv, __doc__, write_fixtures, SHARED_MODELS, "the public models", "imported")


if __name__ == "__main__":
    main()
