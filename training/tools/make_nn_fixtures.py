#!/usr/bin/env python3
"""Parity fixtures for the Swift inference runtime (SketchwiseNN).

Builds two small random PyTorch models that together use every layer type of
docs/model-format.md, exports each as ``<name>.json`` + ``<name>.safetensors``
and writes PyTorch's outputs for a few inputs to ``expected.safetensors``:

* ``cnn`` (raster, 1x20x20): conv2d (3x3 padded, unpadded without bias, 1x1,
  2x2 stride 2) with batchnorm folded in and standalone (image and vector),
  relu, maxpool2d, avgpool2d (3/2, floor), globalavgpool2d, flatten, dense,
  softmax, concat, l2normalize.
* ``seq`` (strokes, [T, 3], T <= 40): conv1d + batchnorm + relu (twice), a
  2-layer bidirectional LSTM, a unidirectional LSTM, sumtime / meantime /
  maxtime, concat, dense, tanh, l2normalize. Trained-style padded batches with the
  masking the format requires (zeroed conv/bn/relu outputs beyond each length,
  packed LSTM input, masked time reductions); the script checks that this
  gives the same outputs as running each sequence unpadded, which is what the
  runtime does.

``expected.safetensors`` holds ``<model>.input.<i>``, ``<model>.logits.<i>`` and
``<model>.embedding.<i>``. Usage: ``python3 training/tools/make_nn_fixtures.py
[output-dir]`` (default Tests/SketchwiseNNTests/Fixtures). Deterministic.
"""

import argparse
import json
import struct
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

ROOT = Path(__file__).resolve().parents[2]
MAX_LENGTH = 40


def write_safetensors(path, tensors, metadata=None):
    """Writes float32 tensors in the safetensors layout: u64 header length, JSON header, data."""
    header, chunks, offset = {}, [], 0
    for name, value in tensors.items():
        data = np.ascontiguousarray(np.asarray(value, dtype="<f4")).tobytes()
        header[name] = {"dtype": "F32", "shape": list(np.shape(value)), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def randomize_batchnorm(bn):
    with torch.no_grad():
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.normal_(0, 0.2)
        bn.running_mean.normal_(0, 0.3)
        bn.running_var.uniform_(0.5, 2.0)


def bn_layer(name, channels, module):
    return {"name": name, "type": "batchnorm", "params": {"channels": channels, "epsilon": module.eps},
            "weights": {"gamma": f"{module_name(module)}.weight", "beta": f"{module_name(module)}.bias",
                        "mean": f"{module_name(module)}.running_mean", "variance": f"{module_name(module)}.running_var"}}


_names = {}


def module_name(module):
    return _names[id(module)]


def linear_weights(module):
    name = module_name(module)
    weights = {"weight": f"{name}.weight"}
    if module.bias is not None:
        weights["bias"] = f"{name}.bias"
    return weights


def conv2d(name, m, **extra):
    params = {"inChannels": m.in_channels, "outChannels": m.out_channels, "kernel": m.kernel_size[0],
              "stride": m.stride[0], "padding": m.padding[0]}
    return {"name": name, "type": "conv2d", "params": params, "weights": linear_weights(m), **extra}


def conv1d(name, m, **extra):
    params = {"inChannels": m.in_channels, "outChannels": m.out_channels, "kernel": m.kernel_size[0],
              "stride": m.stride[0], "padding": m.padding[0]}
    return {"name": name, "type": "conv1d", "params": params, "weights": linear_weights(m), **extra}


def dense(name, m, **extra):
    return {"name": name, "type": "dense", "params": {"inFeatures": m.in_features, "outFeatures": m.out_features},
            "weights": linear_weights(m), **extra}


def lstm(name, m, layer, **extra):
    base = module_name(m)
    suffixes = [("", "")] + ([("Reverse", "_reverse")] if m.bidirectional else [])
    weights = {}
    for role_suffix, torch_suffix in suffixes:
        for role, key in (("weightIH", "weight_ih"), ("weightHH", "weight_hh"), ("biasIH", "bias_ih"), ("biasHH", "bias_hh")):
            weights[role + role_suffix] = f"{base}.{key}_l{layer}{torch_suffix}"
    size = m.input_size if layer == 0 else m.hidden_size * (2 if m.bidirectional else 1)
    params = {"inputSize": size, "hiddenSize": m.hidden_size, "bidirectional": m.bidirectional}
    return {"name": name, "type": "lstm", "params": params, "weights": weights, **extra}


def simple(name, kind, **extra):
    return {"name": name, "type": kind, **extra}


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(1, 6, 3, padding=1), nn.BatchNorm2d(6)
        self.conv2, self.bn2 = nn.Conv2d(6, 8, 3, bias=False), nn.BatchNorm2d(8)
        self.conv3, self.bn3 = nn.Conv2d(8, 10, 1), nn.BatchNorm2d(10)
        self.conv4 = nn.Conv2d(10, 12, 2, stride=2, padding=1)
        self.fa = nn.Linear(48, 16)
        self.bn_cat = nn.BatchNorm1d(28)
        self.fc1, self.bn_fc1 = nn.Linear(28, 20), nn.BatchNorm1d(20)
        self.fc2 = nn.Linear(20, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)       # 6x10x10
        x = F.avg_pool2d(F.relu(self.bn2(self.conv2(x))), 3, 2)     # 8x3x3
        x = F.relu(self.bn3(F.relu(self.conv3(x))))                 # 10x3x3, standalone bn
        x = F.relu(self.conv4(x))                                   # 12x2x2
        gap = x.mean(dim=(2, 3))
        probs = F.softmax(self.fa(torch.flatten(x, 1)), dim=1)
        h = F.relu(self.bn_fc1(self.fc1(self.bn_cat(torch.cat([gap, probs], dim=1)))))
        return self.fc2(h), F.normalize(h, dim=1)

    def spec_layers(self):
        return [
            conv2d("conv1", self.conv1), bn_layer("bn1", 6, self.bn1), simple("relu1", "relu"),
            simple("pool1", "maxpool2d", params={"kernel": 2, "stride": 2}),
            conv2d("conv2", self.conv2), bn_layer("bn2", 8, self.bn2), simple("relu2", "relu"),
            simple("pool2", "avgpool2d", params={"kernel": 3, "stride": 2}),
            conv2d("conv3", self.conv3), simple("relu3", "relu"), bn_layer("bn3", 10, self.bn3),
            simple("relu3b", "relu"),
            conv2d("conv4", self.conv4), simple("relu4", "relu"),
            simple("gap", "globalavgpool2d", inputs=["relu4"]),
            simple("flat", "flatten", inputs=["relu4"]),
            dense("fa", self.fa), simple("probs", "softmax"),
            simple("cat", "concat", inputs=["gap", "probs"]),
            bn_layer("bn_cat", 28, self.bn_cat),
            dense("fc1", self.fc1), bn_layer("bn_fc1", 20, self.bn_fc1), simple("relu_fc1", "relu"),
            simple("embedding", "l2normalize", params={"epsilon": 1e-12}),
            dense("fc2", self.fc2, inputs=["relu_fc1"]),
        ]


class Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv1d(3, 8, 5, padding=2), nn.BatchNorm1d(8)
        self.conv2, self.bn2 = nn.Conv1d(8, 12, 3, padding=1, bias=False), nn.BatchNorm1d(12)
        self.lstm = nn.LSTM(12, 10, num_layers=2, bidirectional=True, batch_first=True)
        self.lstm_u = nn.LSTM(12, 6, batch_first=True)
        self.fc1 = nn.Linear(66, 16)
        self.fc2 = nn.Linear(16, 7)

    def forward(self, x, lengths):
        """x: [B, T, 3] padded with zeros; lengths: [B]."""
        steps = x.shape[1]
        mask = (torch.arange(steps)[None, :] < lengths[:, None]).float()        # [B, T]
        h = x.transpose(1, 2)                                                  # [B, C, T]
        for conv, bn in ((self.conv1, self.bn1), (self.conv2, self.bn2)):
            h = conv(h) * mask[:, None, :]
            h = bn(h) * mask[:, None, :]
            h = F.relu(h) * mask[:, None, :]
        h = h.transpose(1, 2)                                                  # [B, T, C]

        def run(module, value):
            packed = pack_padded_sequence(value, lengths, batch_first=True, enforce_sorted=False)
            out, _ = module(packed)
            return pad_packed_sequence(out, batch_first=True, total_length=steps)[0]

        seq, uni = run(self.lstm, h), run(self.lstm_u, h)
        m = mask[:, :, None]
        total = (seq * m).sum(dim=1)
        mean = total / lengths[:, None].float()
        largest = seq.masked_fill(m == 0, float("-inf")).amax(dim=1)
        largest_u = uni.masked_fill(m == 0, float("-inf")).amax(dim=1)
        h = torch.tanh(self.fc1(torch.cat([total, mean, largest, largest_u], dim=1)))
        return self.fc2(h), F.normalize(h, dim=1)

    def spec_layers(self):
        return [
            conv1d("conv1", self.conv1), bn_layer("bn1", 8, self.bn1), simple("relu1", "relu"),
            conv1d("conv2", self.conv2), bn_layer("bn2", 12, self.bn2), simple("relu2", "relu"),
            lstm("lstm1", self.lstm, 0), lstm("lstm2", self.lstm, 1),
            simple("sum", "sumtime"), simple("mean", "meantime", inputs=["lstm2"]),
            simple("max", "maxtime", inputs=["lstm2"]),
            lstm("lstm_u", self.lstm_u, 0, inputs=["relu2"]), simple("max_u", "maxtime"),
            simple("cat", "concat", inputs=["sum", "mean", "max", "max_u"]),
            dense("fc1", self.fc1), simple("tanh_fc1", "tanh"),
            simple("embedding", "l2normalize"),
            dense("fc2", self.fc2, inputs=["tanh_fc1"]),
        ]


def export(model, name, input_spec, out_dir):
    for module_path, module in model.named_modules():
        _names[id(module)] = module_path
    labels = [f"{name}-class-{i}" for i in range(model.fc2.out_features)]
    spec = {
        "format": "sketchwise-model", "formatVersion": 1, "name": name, "version": "0.0.1",
        "description": f"random parity fixture ({name}) from training/tools/make_nn_fixtures.py",
        "input": input_spec, "labels": labels, "outputs": {"logits": "fc2", "embedding": "embedding"},
        "layers": model.spec_layers(),
        "training": {"data": "none (random weights)", "notes": "test fixture"},
    }
    (out_dir / f"{name}.json").write_text(json.dumps(spec, indent=1) + "\n")
    state = {k: v.detach().numpy() for k, v in model.state_dict().items() if v.dtype == torch.float32}
    write_safetensors(out_dir / f"{name}.safetensors", state, {"format": "pt"})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", nargs="?", type=Path, default=ROOT / "Tests/SketchwiseNNTests/Fixtures", metavar="OUTPUT-DIR",
                    help="default Tests/SketchwiseNNTests/Fixtures")
    out_dir = ap.parse_args(argv).out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(20240611)
    expected = {}

    cnn = CNN()
    for bn in (cnn.bn1, cnn.bn2, cnn.bn3, cnn.bn_cat, cnn.bn_fc1):
        randomize_batchnorm(bn)
    cnn.eval()
    export(cnn, "cnn", {"kind": "raster", "shape": [1, 20, 20],
                        "raster": {"size": 20, "recipe": "quickdraw", "scale": 1 / 255}}, out_dir)
    images = torch.rand(3, 1, 20, 20)
    images[0] = (images[0] > 0.7).float()                                   # sparse, sketch-like
    with torch.no_grad():
        logits, embedding = cnn(images)
    for i in range(len(images)):
        expected[f"cnn.input.{i}"] = images[i].numpy()
        expected[f"cnn.logits.{i}"] = logits[i].numpy()
        expected[f"cnn.embedding.{i}"] = embedding[i].numpy()

    seq = Seq()
    for bn in (seq.bn1, seq.bn2):
        randomize_batchnorm(bn)
    seq.eval()
    export(seq, "seq", {"kind": "strokes", "shape": [MAX_LENGTH, 3],
                        "strokes": {"maxLength": MAX_LENGTH, "normalization": "perAxis"}}, out_dir)
    lengths = torch.tensor([1, 7, 23, MAX_LENGTH])
    batch = torch.zeros(len(lengths), MAX_LENGTH, 3)
    for i, n in enumerate(lengths.tolist()):
        batch[i, :n, :2] = torch.randn(n, 2) * 0.1
        batch[i, :n, 2] = (torch.rand(n) < 0.2).float()
    with torch.no_grad():
        logits, embedding = seq(batch, lengths)
        for i, n in enumerate(lengths.tolist()):
            alone = seq(batch[i:i + 1, :n], lengths[i:i + 1])
            gap = max((alone[0][0] - logits[i]).abs().max().item(), (alone[1][0] - embedding[i]).abs().max().item())
            assert gap < 1e-5, f"padded and unpadded runs differ by {gap} for length {n}"
            expected[f"seq.input.{i}"] = batch[i, :n].numpy()
            expected[f"seq.logits.{i}"] = logits[i].numpy()
            expected[f"seq.embedding.{i}"] = embedding[i].numpy()

    write_safetensors(out_dir / "expected.safetensors", expected,
                      {"cnn": str(len(images)), "seq": str(len(lengths)), "torch": torch.__version__})
    print(f"wrote fixtures to {out_dir}")


if __name__ == "__main__":
    main()
