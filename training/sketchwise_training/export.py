"""Export to the Sketchwise model format (docs/model-format.md) and run exported models back.

* :func:`write_safetensors` / :func:`read_safetensors` -- re-exported from ``model_files.py``
  (numpy only, so that importing models never needs torch).
* :func:`export_model` -- ``<name>.safetensors`` + ``<name>.json`` for a RasterCNN / StrokeRNN.
* :class:`SpecModel` -- an independent interpreter of a spec + weights file (numpy/torch
  functional ops, one drawing at a time, sequences UNPADDED as the Swift runtime feeds them),
  used by evaluate.py and the parity fixtures so export bugs show up as accuracy loss.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from .model_files import FORMAT, read_safetensors, write_safetensors  # noqa: F401 (re-exported)

ATTRIBUTION = "Quick, Draw! dataset by Google, licensed under CC BY 4.0"


# ------------------------------------------------------------------ export
def weight_names(layers) -> list[str]:
    names = []
    for l in layers:
        names += list(l.get("weights", {}).values())
    return names


def export_model(model, out_dir: Path, name: str, labels: list[str], kind: str, description: str,
                 version: str = "1.0.0", notes: str = "", extra_training: dict | None = None,
                 views: tuple[str, ...] = ("original",)) -> tuple[Path, Path]:
    """Write ``<out_dir>/<name>.safetensors`` and ``<name>.json``; only tensors the spec names.
    ``views``: the test-time views whose answers the runtime averages (``original``, ``mirrored``)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    layers = model.spec_layers()
    sd = {k: v.detach().cpu().float().numpy() for k, v in model.state_dict().items()}
    tensors = {n: sd[n] for n in weight_names(layers)}
    if kind == "raster":
        inp = {"kind": "raster", "shape": [len(model.channels), model.size, model.size],
               "raster": {"size": model.size, "recipe": "quickdraw", "scale": 1.0 / 255.0}}
        if model.channels != ("ink",):
            inp["raster"]["channels"] = list(model.channels)
        outputs = {"logits": "fc2", "embedding": "embedding"}
    else:
        from .pipeline import MAX_LENGTH, NORMALIZATION
        inp = {"kind": "strokes", "shape": [MAX_LENGTH, 3],
               "strokes": {"maxLength": MAX_LENGTH, "normalization": NORMALIZATION}}
        outputs = {"logits": "fc", "embedding": "embedding"}
    if tuple(views) != ("original",):
        inp["views"] = list(views)
    training = {"data": ATTRIBUTION, "notes": notes}
    if extra_training:
        training.update(extra_training)
    spec = {"format": FORMAT, "formatVersion": 1, "name": name, "version": version,
            "description": description, "input": inp, "labels": list(labels), "outputs": outputs,
            "layers": layers, "training": training}
    st = out_dir / f"{name}.safetensors"
    js = out_dir / f"{name}.json"
    write_safetensors(st, tensors, {"format": FORMAT, "name": name, "version": version,
                                    "license": "CC BY 4.0", "data": ATTRIBUTION})
    js.write_text(json.dumps(spec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return st, js


# ------------------------------------------------------------------ interpreter
class SpecModel:
    """Runs an exported model from its files: the one Python interpreter of the model format.

    :meth:`run` and :meth:`log_probs` take one input as the Swift runtime does (a sequence unpadded);
    calling the model with a batch (``[N, C, H, W]`` images, or ``[1, T, 3]`` rows) answers
    ``(logits, embedding)`` like the PyTorch modules, on whatever device :meth:`to` moved it to
    (a distillation teacher)."""

    def __init__(self, directory: Path, name: str):
        directory = Path(directory)
        self.spec = json.loads((directory / f"{name}.json").read_text(encoding="utf-8"))
        if self.spec.get("format") != FORMAT or self.spec.get("formatVersion") != 1:
            raise ValueError(f"{name}.json: not a sketchwise-model v1 spec")
        w, _ = read_safetensors(directory / f"{name}.safetensors")
        self.w = {k: torch.from_numpy(v) for k, v in w.items()}
        self._lstm_cache = {}
        self.labels = self.spec["labels"]
        self.input = self.spec["input"]
        names = set()
        for l in self.spec["layers"]:
            if l["name"] in names or l["name"] == "input":
                raise ValueError(f"{name}.json: duplicate layer name {l['name']}")
            for i in l.get("inputs", []):
                if i != "input" and i not in names:
                    raise ValueError(f"{name}.json: layer {l['name']} reads unknown or later {i}")
            names.add(l["name"])
            for t in l.get("weights", {}).values():
                if t not in self.w:
                    raise ValueError(f"{name}.safetensors: missing {t}")

    @property
    def raster_channels(self) -> list[str]:
        """The planes a raster model reads (``["ink"]`` unless its spec names others)."""
        return self.input["raster"].get("channels", ["ink"])

    @property
    def raster_size(self) -> int:
        """The side of a raster model's input images."""
        return self.input["raster"]["size"]

    @property
    def size(self) -> int | None:
        """As :class:`models.RasterCNN`: the input side of a raster model (None for a stroke model)."""
        return self.raster_size if self.input["kind"] == "raster" else None

    @property
    def channels(self) -> tuple[str, ...] | None:
        """As :class:`models.RasterCNN`: the planes a raster model reads (None for a stroke model)."""
        return tuple(self.raster_channels) if self.input["kind"] == "raster" else None

    def to(self, device) -> "SpecModel":
        self.w = {k: v.to(device) for k, v in self.w.items()}
        self._lstm_cache = {k: m.to(device) for k, m in self._lstm_cache.items()}
        return self

    def eval(self) -> "SpecModel":
        return self

    @torch.no_grad()
    def __call__(self, x: torch.Tensor):
        """A batch -> ``(logits, embedding or None)``, tensors with the batch dimension first."""
        values = self._forward(x)
        outputs = self.spec["outputs"]
        return values[outputs["logits"]], values.get(outputs.get("embedding"))

    def _forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        values = {"input": x}
        prev = "input"
        for l in self.spec["layers"]:
            values[l["name"]] = self._layer(l, [values[i] for i in l.get("inputs", [prev])])
            prev = l["name"]
        return values

    def _t(self, l, key):
        return self.w[l["weights"][key]]

    @torch.no_grad()
    def run(self, x) -> dict[str, np.ndarray]:
        """x: raster [channels, H, W] or sequence rows [T, 3] (unpadded). Returns every output."""
        vals = self._forward(torch.as_tensor(np.asarray(x, np.float32))[None])
        return {k: vals[v][0].cpu().numpy() for k, v in self.spec["outputs"].items()}

    def log_probs(self, x) -> np.ndarray:
        """Log-probabilities as the runtime answers them: averaged over the spec's views and
        renormalised."""
        views = self.input.get("views", ["original"])
        lps = [log_softmax_np(self.run(mirror_input(x) if v == "mirrored" else x)["logits"]) for v in views]
        return lps[0] if len(lps) == 1 else log_softmax_np(np.mean(lps, axis=0))

    def _layer(self, l, ins):
        """One layer on batched values (the batch dimension first; a sequence is one unpadded row set)."""
        t, p, x = l["type"], l.get("params", {}), ins[0]
        if t in ("conv2d", "depthwise_conv2d"):
            pad = p.get("padding", 0)
            top, left, bottom, right = pad if isinstance(pad, list) else [pad] * 4
            w = self._t(l, "weight")
            bias = self._t(l, "bias") if "bias" in l.get("weights", {}) else None
            groups = p["channels"] if t == "depthwise_conv2d" else 1
            return F.conv2d(F.pad(x, (left, right, top, bottom)), w, bias, p.get("stride", 1), groups=groups)
        if t == "conv1d":  # [N, T, C] description; PyTorch works on [N, C, T]
            y = F.conv1d(x.transpose(1, 2), self._t(l, "weight"), self._t(l, "bias"), p.get("stride", 1), p.get("padding", 0))
            return y.transpose(1, 2).contiguous()
        if t == "batchnorm":
            g, b, m, v = (self._t(l, k) for k in ("gamma", "beta", "mean", "variance"))
            eps = p.get("epsilon", 1e-5)
            scale = g / torch.sqrt(v + eps)
            if x.dim() == 4:  # [N, C, H, W]
                return x * scale[:, None, None] + (b - m * scale)[:, None, None]
            return x * scale + (b - m * scale)  # [N, T, C] or [N, C]
        if t == "relu":
            return torch.relu(x)
        if t == "relu6":
            return F.relu6(x)
        if t == "add":
            return sum(ins[1:], ins[0])
        if t == "tanh":
            return torch.tanh(x)
        if t == "maxpool2d":
            return F.max_pool2d(x, p["kernel"], p["stride"])
        if t == "avgpool2d":
            return F.avg_pool2d(x, p["kernel"], p["stride"])
        if t == "globalavgpool2d":
            return x.mean(dim=(2, 3))
        if t == "flatten":
            return x.reshape(x.shape[0], -1)
        if t == "dense":
            return x @ self._t(l, "weight").T + self._t(l, "bias")
        if t == "lstm":
            return self._lstm(l, x)
        if t == "sumtime":
            return x.sum(1)
        if t == "meantime":
            return x.mean(1)
        if t == "maxtime":
            return x.max(1).values
        if t == "concat":
            return torch.cat(ins, 1)
        if t == "softmax":
            return torch.softmax(x, 1)
        if t == "l2normalize":
            norm = torch.clamp(x.flatten(1).norm(dim=1), min=p.get("epsilon", 1e-12))
            return x / norm.reshape(-1, *[1] * (x.dim() - 1))
        raise ValueError(f"unknown layer type {t}")

    def _lstm(self, l, x):
        """One LSTM layer on unpadded sequences ``[N, T, C]`` (torch's fused kernel, weights from the file)."""
        p = l["params"]
        key = l["name"]
        if key not in self._lstm_cache:
            m = torch.nn.LSTM(p["inputSize"], p["hiddenSize"], batch_first=True, bidirectional=p.get("bidirectional", False))
            sd = {"weight_ih_l0": self._t(l, "weightIH"), "weight_hh_l0": self._t(l, "weightHH"),
                  "bias_ih_l0": self._t(l, "biasIH"), "bias_hh_l0": self._t(l, "biasHH")}
            if p.get("bidirectional", False):
                sd.update({k + "_reverse": self._t(l, w + "Reverse") for k, w in
                           [("weight_ih_l0", "weightIH"), ("weight_hh_l0", "weightHH"),
                            ("bias_ih_l0", "biasIH"), ("bias_hh_l0", "biasHH")]})
            m.load_state_dict(sd)
            m.to(x.device).eval()
            self._lstm_cache[key] = m
        return self._lstm_cache[key](x)[0]

    def lstm_reference(self, l, x):
        """Step-by-step LSTM in plain ops (gate order i, f, g, o) -- a check of the fused path."""
        p = l["params"]
        h_size = p["hiddenSize"]

        def direction(seq, suffix):
            wih, whh = self._t(l, "weightIH" + suffix), self._t(l, "weightHH" + suffix)
            b = self._t(l, "biasIH" + suffix) + self._t(l, "biasHH" + suffix)
            gx = seq @ wih.T + b
            h = torch.zeros(h_size)
            c = torch.zeros(h_size)
            outs = []
            for k in range(seq.shape[0]):
                g = gx[k] + whh @ h
                i, f, gg, o = g.split(h_size)
                c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(gg)
                h = torch.sigmoid(o) * torch.tanh(c)
                outs.append(h)
            return torch.stack(outs)

        fwd = direction(x, "")
        if not p.get("bidirectional", False):
            return fwd
        bwd = direction(x.flip(0), "Reverse").flip(0)
        return torch.cat([fwd, bwd], 1)


def mirror_input(x) -> np.ndarray:
    """The left-right mirror image of one model input: an image ``[C, H, W]``'s columns
    reversed, a sequence ``[T, 3]``'s Δx negated (as the Swift runtime does)."""
    x = np.array(x, np.float32)
    if x.ndim == 3:
        return np.ascontiguousarray(x[..., ::-1])
    x[:, 0] = -x[:, 0]
    return x


def log_softmax_np(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def count_macs(spec: dict, steps: int | None = None) -> int:
    """MACs of a spec's conv/dense/lstm layers (sequence models at ``steps`` time steps)."""
    shp = spec["input"]["shape"]
    if spec["input"]["kind"] == "strokes":
        T = steps or shp[0]
        total = 0
        for l in spec["layers"]:
            p = l.get("params", {})
            if l["type"] == "conv1d":
                total += T * p["inChannels"] * p["outChannels"] * p["kernel"]
            elif l["type"] == "lstm":
                total += (2 if p["bidirectional"] else 1) * T * 4 * p["hiddenSize"] * (p["inputSize"] + p["hiddenSize"])
            elif l["type"] == "dense":
                total += p["inFeatures"] * p["outFeatures"]
        return total
    c, h, w = shp
    total = 0
    for l in spec["layers"]:
        p = l.get("params", {})
        if l["type"] == "conv2d":
            h = (h + 2 * p["padding"] - p["kernel"]) // p["stride"] + 1
            w = (w + 2 * p["padding"] - p["kernel"]) // p["stride"] + 1
            total += h * w * p["outChannels"] * p["inChannels"] * p["kernel"] ** 2
        elif l["type"] in ("maxpool2d", "avgpool2d"):
            h = (h - p["kernel"]) // p["stride"] + 1
            w = (w - p["kernel"]) // p["stride"] + 1
        elif l["type"] == "dense":
            total += p["inFeatures"] * p["outFeatures"]
    return total
