"""The two recognisers, in PyTorch, built only from layers docs/model-format.md defines.

* :class:`RasterCNN` -- 28x28 raster (pixel/255; one plane per raster channel, ``ink`` and
  optionally ``order``) -> logits over 345 classes, plus an L2-normalised embedding of the
  penultimate layer.
* :class:`StrokeRNN` -- (dx, dy, pen-up) rows -> logits: conv1d stack + bidirectional LSTMs +
  masked sum over time + dense (the TF Quick, Draw! tutorial's design). Padded batches give
  exactly what the runtime computes on each unpadded sequence: every conv1d / batchnorm / relu
  output is zeroed beyond the sequence's length, batch-norm statistics are taken over valid
  steps only, the LSTMs run on packed sequences and the time sum only sees valid steps.

Each model knows its layer list in the spec format (:meth:`spec_layers`), used by export.py;
:func:`load_exported` rebuilds a module from exported files.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from .export import SpecModel, read_safetensors


def _bn_layer(name, channels, eps=1e-5):
    return {"name": name, "type": "batchnorm", "params": {"channels": channels, "epsilon": eps},
            "weights": {"gamma": f"{name}.weight", "beta": f"{name}.bias",
                        "mean": f"{name}.running_mean", "variance": f"{name}.running_var"}}


def conv_block_layers(widths, in_channels: int) -> list[dict]:
    """Spec layers of ``conv{i}`` (3x3, padding 1) + ``bn{i}`` + ReLU + 2x2 max-pool blocks."""
    layers, cin = [], in_channels
    for i, w in enumerate(widths, 1):
        layers += [
            {"name": f"conv{i}", "type": "conv2d",
             "params": {"inChannels": cin, "outChannels": w, "kernel": 3, "stride": 1, "padding": 1},
             "weights": {"weight": f"conv{i}.weight", "bias": f"conv{i}.bias"}},
            _bn_layer(f"bn{i}", w),
            {"name": f"relu{i}", "type": "relu"},
            {"name": f"pool{i}", "type": "maxpool2d", "params": {"kernel": 2, "stride": 2}},
        ]
        cin = w
    return layers


class RasterCNN(nn.Module):
    """conv(3x3)+BN+ReLU+maxpool blocks, flatten, dense+ReLU (embedding), dense (logits)."""

    def __init__(self, num_classes: int = 345, widths=(32, 48, 64), fc: int = 256, dropout: float = 0.3,
                 size: int = 28, input_dropout: float | None = None, channels=("ink",)):
        super().__init__()
        self.widths, self.fc, self.num_classes, self.size = tuple(widths), fc, num_classes, size
        self.channels = tuple(channels)
        cin = len(self.channels)
        s = size
        for i, w in enumerate(widths, 1):
            setattr(self, f"conv{i}", nn.Conv2d(cin, w, 3, 1, 1))
            setattr(self, f"bn{i}", nn.BatchNorm2d(w))
            cin = w
            s //= 2
        self.flat = cin * s * s
        self.fc1 = nn.Linear(self.flat, fc)
        self.fc2 = nn.Linear(fc, num_classes)
        self.drop = nn.Dropout(dropout)
        self.drop_in = nn.Dropout(dropout / 2 if input_dropout is None else input_dropout)

    def forward(self, x):
        """x: [N, channels, 28, 28] -> (logits [N, classes], embedding [N, fc])."""
        for i in range(1, len(self.widths) + 1):
            x = F.max_pool2d(F.relu(getattr(self, f"bn{i}")(getattr(self, f"conv{i}")(x))), 2, 2)
        x = torch.flatten(x, 1)
        h = F.relu(self.fc1(self.drop_in(x)))
        emb = F.normalize(h, dim=1)
        return self.fc2(self.drop(h)), emb

    def spec_layers(self):
        layers = conv_block_layers(self.widths, len(self.channels))
        layers += [
            {"name": "flatten", "type": "flatten"},
            {"name": "fc1", "type": "dense", "params": {"inFeatures": self.flat, "outFeatures": self.fc},
             "weights": {"weight": "fc1.weight", "bias": "fc1.bias"}},
            {"name": "relu_fc1", "type": "relu"},
            {"name": "embedding", "type": "l2normalize", "inputs": ["relu_fc1"]},
            {"name": "fc2", "type": "dense", "inputs": ["relu_fc1"],
             "params": {"inFeatures": self.fc, "outFeatures": self.num_classes},
             "weights": {"weight": "fc2.weight", "bias": "fc2.bias"}},
        ]
        return layers

    def macs(self):
        m, cin, s = 0, len(self.channels), self.size
        for w in self.widths:
            m += cin * w * 9 * s * s
            cin, s = w, s // 2
        return m + self.flat * self.fc + self.fc * self.num_classes


class MaskedBatchNorm1d(nn.Module):
    """BatchNorm over the channel axis of ``[N, C, T]`` using only valid steps (mask [N, 1, T]).
    Same parameter/buffer names as ``nn.BatchNorm1d``; inference uses running statistics."""

    def __init__(self, channels, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.register_buffer("running_mean", torch.zeros(channels))
        self.register_buffer("running_var", torch.ones(channels))

    def forward(self, x, mask):
        if self.training:
            n = mask.sum().clamp_min(2.0)
            mean = (x * mask).sum(dim=(0, 2)) / n
            var = (((x - mean[None, :, None]) * mask) ** 2).sum(dim=(0, 2)) / n
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * mean)
                self.running_var.mul_(1 - self.momentum).add_(self.momentum * var * n / (n - 1))
        else:
            mean, var = self.running_mean, self.running_var
        y = (x - mean[None, :, None]) * torch.rsqrt(var[None, :, None] + self.eps)
        return y * self.weight[None, :, None] + self.bias[None, :, None]


class StrokeRNN(nn.Module):
    def __init__(self, num_classes: int = 345, convs=((48, 5), (64, 5), (96, 3)), hidden: int = 128,
                 lstm_layers: int = 3, dropout: float = 0.3):
        super().__init__()
        self.convs, self.hidden, self.lstm_layers, self.num_classes = tuple(convs), hidden, lstm_layers, num_classes
        cin = 3
        for i, (w, k) in enumerate(convs, 1):
            setattr(self, f"conv{i}", nn.Conv1d(cin, w, k, 1, k // 2))
            setattr(self, f"bn{i}", MaskedBatchNorm1d(w))
            cin = w
        self.conv_out = cin
        self.lstm = nn.LSTM(cin, hidden, num_layers=lstm_layers, bidirectional=True, batch_first=True,
                            dropout=dropout if lstm_layers > 1 else 0.0)
        self.fc = nn.Linear(2 * hidden, num_classes)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, lengths):
        """x: [N, T, 3] zero-padded, lengths: [N] (>= 1) -> (logits, embedding)."""
        n, t, _ = x.shape
        mask = (torch.arange(t, device=x.device)[None, :] < lengths[:, None]).to(x.dtype)[:, None, :]  # [N,1,T]
        h = x.transpose(1, 2) * mask
        for i in range(1, len(self.convs) + 1):
            h = getattr(self, f"conv{i}")(h) * mask
            h = getattr(self, f"bn{i}")(h, mask) * mask
            h = F.relu(h) * mask
        h = h.transpose(1, 2)  # [N, T, C]
        packed = pack_padded_sequence(h, lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=t)
        out = out * mask.transpose(1, 2)
        s = out.sum(dim=1)
        return self.fc(self.drop(s)), F.normalize(s, dim=1)

    def spec_layers(self):
        layers = []
        cin = 3
        for i, (w, k) in enumerate(self.convs, 1):
            layers += [
                {"name": f"conv{i}", "type": "conv1d",
                 "params": {"inChannels": cin, "outChannels": w, "kernel": k, "stride": 1, "padding": k // 2},
                 "weights": {"weight": f"conv{i}.weight", "bias": f"conv{i}.bias"}},
                _bn_layer(f"bn{i}", w),
                {"name": f"relu{i}", "type": "relu"},
            ]
            cin = w
        for l in range(self.lstm_layers):
            p = f"lstm.{{}}_l{l}"
            layers.append({
                "name": f"lstm{l + 1}", "type": "lstm",
                "params": {"inputSize": cin, "hiddenSize": self.hidden, "bidirectional": True},
                "weights": {"weightIH": p.format("weight_ih"), "weightHH": p.format("weight_hh"),
                            "biasIH": p.format("bias_ih"), "biasHH": p.format("bias_hh"),
                            "weightIHReverse": p.format("weight_ih") + "_reverse",
                            "weightHHReverse": p.format("weight_hh") + "_reverse",
                            "biasIHReverse": p.format("bias_ih") + "_reverse",
                            "biasHHReverse": p.format("bias_hh") + "_reverse"}})
            cin = 2 * self.hidden
        layers += [
            {"name": "sum", "type": "sumtime"},
            {"name": "embedding", "type": "l2normalize", "inputs": ["sum"]},
            {"name": "fc", "type": "dense", "inputs": ["sum"],
             "params": {"inFeatures": cin, "outFeatures": self.num_classes},
             "weights": {"weight": "fc.weight", "bias": "fc.bias"}},
        ]
        return layers

    def macs_per_step(self):
        m, cin = 0, 3
        for w, k in self.convs:
            m += cin * w * k
            cin = w
        for _ in range(self.lstm_layers):
            m += 2 * 4 * self.hidden * (cin + self.hidden)
            cin = 2 * self.hidden
        return m

    def macs(self, steps: int):
        return self.macs_per_step() * steps + 2 * self.hidden * self.num_classes


def load_exported(models_dir: Path, name: str) -> torch.nn.Module:
    """An exported model as its PyTorch module (eval mode), from ``<name>.json`` (its
    ``training.config``, or for an imported model its layers) and ``<name>.safetensors``;
    weights that do not fit the config are refused."""
    spec = json.loads((Path(models_dir) / f"{name}.json").read_text(encoding="utf-8"))
    cfg = spec.get("training", {}).get("config")
    if cfg is None:
        if "source" in spec:  # imported: no training config, run by the interpreter of its layers
            return SpecModel(Path(models_dir), name)
        raise ValueError(f"{name}.json: no training.config to rebuild the model from")
    labels = len(spec["labels"])
    model = RasterCNN(labels, **cfg) if spec["input"]["kind"] == "raster" else StrokeRNN(labels, **cfg)
    weights, _ = read_safetensors(Path(models_dir) / f"{name}.safetensors")
    missing, unexpected = model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()}, strict=False)
    missing = [k for k in missing if not k.endswith("num_batches_tracked")]
    if missing or unexpected:
        raise ValueError(f"{name}: weights do not match its config (missing {missing}, unexpected {unexpected})")
    return model.eval()


def warm_start(model, checkpoint: Path):
    """Start from another run's weights, a ``ckpt.pt`` or an exported model's ``<name>.json``
    (same layers; a first conv with fewer input channels is copied into the first ones, the
    added channels' weights start at zero)."""
    checkpoint = Path(checkpoint)
    if checkpoint.suffix == ".json":
        source = load_exported(checkpoint.parent, checkpoint.stem).state_dict()
    else:
        source = torch.load(checkpoint, weights_only=False)["model"]
    own = model.state_dict()
    for k, v in source.items():
        if own[k].shape == v.shape:
            own[k] = v
        elif v.dim() == 4 and own[k].shape[0] == v.shape[0] and own[k].shape[1] > v.shape[1]:
            own[k] = torch.zeros_like(own[k])
            own[k][:, :v.shape[1]] = v
        else:
            raise ValueError(f"--warm-start: {k} has shape {tuple(v.shape)}, this model {tuple(own[k].shape)}")
    model.load_state_dict(own)
