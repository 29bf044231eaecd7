"""Train the sketch embedding that personal shortcuts (few-shot k-NN) run on.

The network maps a 28x28 drawing (the app's own Cairo raster) to a 128-d L2-normalised
vector; drawings of one thing land close together, so a person's three examples of a new
symbol make a usable prototype.

Training: a cosine-softmax classifier with an additive margin (CosFace) over
* Omniglot characters of the training zip (default ``strokes_background_small1.zip``), each
  character also in its eight symmetries (quarter turns, mirrored or not) as eight classes,
* with ``--unlabelled``, pseudo-classes clustered from unlabelled Omniglot drawings without
  those that may be copies of evaluation drawings (``pseudo_labels.py``), and
* the Quick, Draw! classes that are not held out (a fixed 20 % of the 345 classes, by a hash of
  the class name, stay unseen for the Quick, Draw! few-shot measure; half of those are validation
  classes, ``qd_validation``), with ``--qd-bitmaps`` also Google's bitmaps of them,
with stroke-space augmentation (a smooth random warp, rotation, shear, aspect, jitter)
re-rendered every batch (bitmaps: a small random affine). The classifier head is thrown away;
the embedding is what is exported, with the angles the runtime turns a drawing by
(``--embedding-rotations``).
``combine`` joins several exported embeddings, or the members of exported ensembles, into one
model (the shipped one is three).

Honest evaluation: the few-shot episodes use only alphabets absent from the training zip
(``strokes_background_small2.zip`` minus Greek and Latin, which both zips hold) and the
held-out Quick, Draw! classes. The schedule is fixed (no early stopping on those episodes).
Settings are best chosen on ``--validation-alphabets``: alphabets of the training zip kept out of
training (and their possible copies out of ``--unlabelled``), measured like the evaluation ones
and reported as ``validation_*``, so the evaluation alphabets stay untouched.
The shipped model's commands are in docs/shortcuts.md.

    python3 -m sketchwise_training.embedding train --smoke --out /tmp/emb     # < 1 min
    python3 -m sketchwise_training.embedding evaluate --models /tmp/emb --views 0,-10,10
    python3 -m sketchwise_training.embedding combine /tmp/a/sketch-embedding /tmp/b/sketch-embedding --out /tmp/ab
    python3 -m sketchwise_training.embedding fixture --models Models Tests/SketchwiseNNTests/Fixtures/parity

The export lists every trained label under ``training.labels`` so ``sketchwise fewshot
--unseen`` can skip them.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from sketchwise_data import quickdraw as qd
from sketchwise_data import raster, tensor_raster
from sketchwise_data.augment import AugmentConfig, augment_strokes, mirror
from sketchwise_data.tensor_augment import bitmap_augment

from . import MODELS, pseudo_labels
from .export import write_safetensors, FORMAT
from .models import conv_block_layers
from .torch_version import warn_if_torch_differs
from .train_on_device import PRECISION_HELP, PRECISIONS, autocast_on, pick_device, resolve_precision

EMBEDDING = 128
HELD_OUT_QD_FRACTION = 0.2
QD_VALIDATION_FRACTION = 0.5  # of the held-out classes
OMNIGLOT_ATTRIBUTION = "Omniglot (Lake, Salakhutdinov & Tenenbaum), MIT licence"


# ------------------------------------------------------------------ data
def parse_omniglot(text: str):
    """An Omniglot stroke file -> raw strokes ``[xs, ys, ts]`` (y flipped to point down),
    as Swift's ``OmniglotStrokes.parse`` reads it."""
    strokes, current = [], []
    for line in text.splitlines():
        line = line.strip()
        if line in ("", "START"):
            continue
        if line == "BREAK":
            if current:
                strokes.append(current)
            current = []
            continue
        x, y, t = (float(v) for v in line.split(","))
        current.append((x, -y, t))
    if current:
        strokes.append(current)
    return [[np.array([p[0] for p in s]), np.array([p[1] for p in s]), np.array([p[2] for p in s])]
            for s in strokes]


def load_omniglot(path: Path, skip_alphabets=()) -> list[tuple[str, list]]:
    """(label ``alphabet/characterNN``, simplified strokes) for every drawing of a stroke zip."""
    out = []
    with zipfile.ZipFile(path) as z:
        for name in sorted(z.namelist()):
            parts = name.split("/")
            if not name.endswith(".txt") or any(p.startswith(".") or p == "__MACOSX" for p in parts):
                continue
            label = "/".join(parts[:-1][-2:])
            if parts[-3] in skip_alphabets:
                continue
            strokes = qd.simplify_strokes(parse_omniglot(z.read(name).decode("utf-8")))
            if strokes:
                out.append((label, strokes))
    return out


def alphabet(label: str) -> str:
    """The alphabet of an Omniglot label ``alphabet/characterNN``."""
    return label.split("/")[0]


def split_by_alphabet(items: list, alphabets) -> tuple[list, list]:
    """Omniglot ``(label, strokes)`` items split into those of ``alphabets`` and the others."""
    inside = [x for x in items if alphabet(x[0]) in alphabets]
    return inside, [x for x in items if alphabet(x[0]) not in alphabets]


def qd_held_out(name: str) -> bool:
    """Whether a Quick, Draw! class is kept out of training (for the unseen-class measure)."""
    return qd.hash_fraction(f"embedding-held-out/{name}") < HELD_OUT_QD_FRACTION


def qd_validation(name: str) -> bool:
    """Whether a held-out Quick, Draw! class is a validation class (choices are made on it, and the
    shortcut calibration's) rather than a test class (only measured)."""
    return qd_held_out(name) and qd.hash_fraction(f"embedding-validation/{name}") < QD_VALIDATION_FRACTION


def load_quickdraw(data: Path, held_out: bool, per_class: int) -> list[tuple[str, list]]:
    out = []
    qd_dir = data / "quickdraw"
    for name in qd.load_categories(qd_dir):
        if qd_held_out(name) != held_out:
            continue
        n = 0
        for folder in ("simplified", "simplified-extra"):
            path = qd_dir / folder / f"{name}.ndjson"
            if not path.exists() or n >= per_class:
                continue
            for rec in qd.iter_ndjson(path, limit=per_class - n):
                strokes = [[np.asarray(s[0], np.float64), np.asarray(s[1], np.float64)]
                           for s in rec["drawing"] if len(s[0])]
                if strokes:
                    out.append((name, strokes))
                    n += 1
    return out


def load_quickdraw_bitmaps(data: Path, per_class: int) -> list[tuple[str, np.ndarray]]:
    """Up to ``per_class`` of Google's 28x28 bitmaps (``bitmap/<class>.npy``) of every trained
    Quick, Draw! class that has them: (class, ``(784,)`` uint8) pairs."""
    out = []
    qd_dir = data / "quickdraw"
    for name in qd.load_categories(qd_dir):
        path = qd_dir / "bitmap" / f"{name}.npy"
        if per_class <= 0 or qd_held_out(name) or not path.exists():
            continue
        out += [(name, np.array(row)) for row in qd.load_bitmaps(path)[:per_class]]
    return out


def dihedral(strokes, k: int):
    """Strokes turned by ``k % 4`` quarter turns in the 0..255 frame, mirrored when ``k >= 4``:
    the eight symmetries of the square, each a new class for a character."""
    if k >= 4:
        strokes = mirror(strokes)
    for _ in range(k % 4):
        strokes = [[255.0 - s[1], s[0].copy()] for s in strokes]
    return strokes


def warp(strokes, rng, amplitude: float = 7.0):
    """A smooth random displacement of every point (two low-frequency waves per axis, up to
    ``amplitude`` units of the 0..255 frame): drawers' wobbles, which affine maps cannot give."""
    waves = []
    for _ in range(2):
        freq = rng.uniform(0.5, 1.8, size=2) * 2 * math.pi / 255.0
        waves.append((freq, rng.uniform(0, 2 * math.pi, size=2), rng.uniform(-amplitude, amplitude, size=2)))
    out = []
    for s in strokes:
        x, y = np.asarray(s[0], np.float64), np.asarray(s[1], np.float64)
        dx, dy = np.zeros_like(x), np.zeros_like(y)
        for freq, phase, amp in waves:
            dx += amp[0] * np.sin(freq[0] * y + phase[0])
            dy += amp[1] * np.sin(freq[1] * x + phase[1])
        out.append([x + dx, y + dy])
    return out


OMNIGLOT_AUG = AugmentConfig(rotation_deg=10, shear=0.15, aspect_log=0.15, scale_log=0.0, jitter=1.2,
                             drop_prob=0.0, partial_prob=0.0, p_affine=0.9, p_jitter=0.5, p_mirror=0.0)
QD_AUG = AugmentConfig(rotation_deg=12, shear=0.2, aspect_log=0.2, scale_log=0.0, jitter=1.5,
                       drop_prob=0.05, partial_prob=0.0, p_affine=0.9, p_jitter=0.5, p_mirror=0.5)


def augmented(strokes, rng, cfg: AugmentConfig, warp_amplitude: float = 7.0):
    """The smooth warp (4 times in 5), then the shared stroke augmentation."""
    if rng.random() < 0.8:
        strokes = warp(strokes, rng, warp_amplitude)
    return augment_strokes(strokes, rng, cfg)


#: How training drawings are rendered: by cairo one at a time on the CPU (the recipe the shipped
#: embedding was trained with), or as tensor operations on the training device (``tensor_raster``:
#: within 0.01 of cairo's pixels on average, and the only way to keep a GPU fed).
RENDERERS = ("cairo", "tensor")


def render(drawings, renderer: str = "cairo", device="cpu") -> torch.Tensor:
    """Drawings as ``[B, 1, 28, 28]`` images (ink 1) on ``device``."""
    if renderer == "tensor":
        return tensor_raster.render_strokes(drawings, device=device)
    x = np.stack([raster.render(d) for d in drawings]).astype(np.float32) / 255.0
    return torch.from_numpy(x).unsqueeze(1).to(device)


#: The symmetry slot of a training item: a pseudo-class item, turned by one of its eight each
#: time; a Google bitmap, not strokes.
ANY_SYMMETRY, BITMAP = -1, -2


def training_images(batch, rng, gen: torch.Generator, warp_amplitude: float, renderer: str = "cairo",
                    device="cpu") -> torch.Tensor:
    """The images of a batch of training items ``(class, strokes or bitmap, symmetry, augmentation)``
    in their order, on ``device``: strokes warped, augmented and rendered; bitmaps under a small
    random affine."""
    images = torch.zeros(len(batch), 1, 28, 28, device=device)
    drawn = [i for i, item in enumerate(batch) if item[2] != BITMAP]
    bitmaps = [i for i, item in enumerate(batch) if item[2] == BITMAP]
    if drawn:
        strokes = [augmented(dihedral(batch[i][1], batch[i][2]), rng, batch[i][3], warp_amplitude) for i in drawn]
        images[drawn] = render(strokes, renderer, device)
    if bitmaps:
        raw = torch.from_numpy(np.stack([batch[i][1] for i in bitmaps]).astype(np.float32) / 255.0)
        images[bitmaps] = bitmap_augment(raw.reshape(-1, 1, 28, 28), gen).to(device)
    return images


# ------------------------------------------------------------------ model
class SketchEmbedding(nn.Module):
    """Four conv(3x3)+BN+ReLU+maxpool blocks (28 -> 14 -> 7 -> 3 -> 1), a linear projection and
    L2 normalisation: what the cosine-softmax training sees (``project``). With ``pooled_blocks``,
    the embedding also holds each of those blocks' output, max-pooled over its whole map and
    L2-normalised: the unit vectors concatenated and normalised again. Earlier blocks are less
    tied to the training classes, and on unseen ones the two measure better together."""

    def __init__(self, widths=(32, 64, 128, 256), dim: int = EMBEDDING, dropout: float = 0.0, pooled_blocks=()):
        super().__init__()
        self.widths, self.proj_dim = tuple(widths), dim
        self.pool_blocks(pooled_blocks)
        self.drop = nn.Dropout(dropout)
        cin = 1
        for i, w in enumerate(self.widths, 1):
            setattr(self, f"conv{i}", nn.Conv2d(cin, w, 3, 1, 1))
            setattr(self, f"bn{i}", nn.BatchNorm2d(w))
            cin = w
        self.proj = nn.Linear(cin, dim)

    def pool_blocks(self, blocks):
        """Makes the max-pooled outputs of ``blocks`` (1-based, before the last) part of the embedding."""
        self.pooled_blocks = tuple(sorted(set(blocks)))
        if any(not 1 <= b < len(self.widths) for b in self.pooled_blocks):
            raise ValueError(f"pooled blocks {self.pooled_blocks}: each must be one of 1..{len(self.widths) - 1}")
        self.dim = self.proj_dim + sum(self.widths[b - 1] for b in self.pooled_blocks)

    def _blocks(self, x):
        outputs = []
        for i in range(1, len(self.widths) + 1):
            x = F.max_pool2d(F.relu(getattr(self, f"bn{i}")(getattr(self, f"conv{i}")(x))), 2, 2)
            outputs.append(x)
        return outputs

    def _projected(self, last):
        return F.normalize(self.proj(self.drop(torch.flatten(last, 1))), dim=1)

    def project(self, x):
        """The normalised projection alone (the training objective's input)."""
        return self._projected(self._blocks(x)[-1])

    def forward(self, x):
        blocks = self._blocks(x)
        projected = self._projected(blocks[-1])
        if not self.pooled_blocks:
            return projected
        pooled = [F.normalize(blocks[b - 1].amax((2, 3)), dim=1) for b in self.pooled_blocks]
        return F.normalize(torch.cat([projected] + pooled, 1), dim=1)

    def spec_layers(self):
        layers = conv_block_layers(self.widths, 1) + [
            {"name": "flatten", "type": "flatten"},
            {"name": "proj", "type": "dense", "params": {"inFeatures": self.widths[-1], "outFeatures": self.proj_dim},
             "weights": {"weight": "proj.weight", "bias": "proj.bias"}},
        ]
        if not self.pooled_blocks:
            return layers + [{"name": "embedding", "type": "l2normalize"}]
        layers.append({"name": "projected", "type": "l2normalize"})
        for b in self.pooled_blocks:
            side = 28 >> b  # each block halves the map, flooring
            layers += [
                {"name": f"blockmax{b}", "type": "maxpool2d", "inputs": [f"pool{b}"], "params": {"kernel": side, "stride": side}},
                {"name": f"blockmax{b}_flat", "type": "flatten"},
                {"name": f"blockmax{b}_unit", "type": "l2normalize"},
            ]
        return layers + [
            {"name": "joined", "type": "concat", "inputs": ["projected"] + [f"blockmax{b}_unit" for b in self.pooled_blocks]},
            {"name": "embedding", "type": "l2normalize"},
        ]


class EmbeddingEnsemble(nn.Module):
    """Several embeddings of one drawing joined: their unit vectors concatenated and L2-normalised
    again (each member weighs the same). Exported as one model whose branches all read the input."""

    def __init__(self, members: list[SketchEmbedding]):
        super().__init__()
        self.members = nn.ModuleList(members)
        self.dim = sum(m.dim for m in members)

    def forward(self, x):
        return F.normalize(torch.cat([m(x) for m in self.members], 1), dim=1)

    def spec_layers(self):
        layers, ends = [], []
        for i, member in enumerate(self.members):
            for k, layer in enumerate(member.spec_layers()):
                layer = dict(layer, name=f"m{i}_{layer['name']}")
                if "weights" in layer:
                    layer["weights"] = {role: f"members.{i}.{w}" for role, w in layer["weights"].items()}
                if k == 0:
                    layer["inputs"] = ["input"]
                elif "inputs" in layer:
                    layer["inputs"] = [f"m{i}_{n}" for n in layer["inputs"]]
                layers.append(layer)
            ends.append(layers[-1]["name"])
        return layers + [{"name": "joined", "type": "concat", "inputs": ends}, {"name": "embedding", "type": "l2normalize"}]


class CosFaceHead(nn.Module):
    """Cosine logits ``scale * (cos - margin * onehot)`` against normalised class weights."""

    def __init__(self, dim: int, classes: int, scale: float = 16.0, margin: float = 0.2):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(classes, dim) * 0.01)
        self.scale, self.margin = scale, margin

    def forward(self, emb, labels=None):
        cos = emb @ F.normalize(self.weight, dim=1).t()
        if labels is not None:
            cos = cos - self.margin * F.one_hot(labels, cos.shape[1])
        return self.scale * cos


# ------------------------------------------------------------------ evaluation
def rotated(strokes, degrees: float):
    """Strokes turned by ``degrees`` about the frame's centre (a test-time view)."""
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    return [[c * (st[0] - 127.5) - s * (st[1] - 127.5) + 127.5, s * (st[0] - 127.5) + c * (st[1] - 127.5) + 127.5] for st in strokes]


@torch.no_grad()
def embed(model, drawings, batch: int = 512, views=(0.0,)) -> torch.Tensor:
    """Embeddings of drawings (rendered by cairo, as the runtime draws them; run on the model's
    device, returned on the CPU); with several ``views`` (rotations in degrees) their normalised mean."""
    model.eval()
    device = next(model.parameters()).device
    total = 0
    for degrees in views:
        turned = drawings if degrees == 0 else [rotated(d, degrees) for d in drawings]
        total = total + torch.cat([model(render(turned[i:i + batch], device=device)).cpu()
                                   for i in range(0, len(turned), batch)])
    return F.normalize(total, dim=1) if len(views) > 1 else total


def few_shot(embeddings: torch.Tensor, labels: list[str], ways: int, shots: int, episodes: int, seed: int) -> float:
    """Nearest-prototype accuracy of N-way K-shot episodes with one query per label."""
    rng = np.random.default_rng(seed)
    by_label: dict[str, list[int]] = {}
    for i, l in enumerate(labels):
        by_label.setdefault(l, []).append(i)
    eligible = sorted(l for l, ix in by_label.items() if len(ix) > shots)
    ways = min(ways, len(eligible))
    right = 0
    for _ in range(episodes):
        chosen = rng.choice(len(eligible), ways, replace=False)
        protos, queries = [], []
        for c in chosen:
            ix = rng.permutation(by_label[eligible[c]])[:shots + 1]
            protos.append(F.normalize(embeddings[ix[:shots]].mean(0), dim=0))
            queries.append(embeddings[ix[shots]])
        sims = torch.stack(queries) @ torch.stack(protos).t()
        right += int((sims.argmax(1) == torch.arange(ways)).sum())
    return right / (episodes * ways)


def evaluate(model, sets: dict, episodes: int, views=(0.0,)) -> dict:
    out = {}
    for name, items in sets.items():
        emb = embed(model, [d for _, d in items], views=views)
        labels = [l for l, _ in items]
        if name == "quickdraw":  # all held-out classes, then the validation and the test ones
            out["quickdraw_5way_3shot"] = few_shot(emb, labels, 5, 3, episodes, 1)
            for half, wanted in (("validation", True), ("test", False)):
                rows = [i for i, label in enumerate(labels) if qd_validation(label) == wanted]
                if len({labels[i] for i in rows}) >= 5:
                    out[f"quickdraw_{half}_5way_3shot"] = few_shot(emb[rows], [labels[i] for i in rows], 5, 3, episodes, 1)
        else:  # Omniglot characters: the evaluation alphabets, or the validation ones
            out[f"{name}_20way_1shot"] = few_shot(emb, labels, 20, 1, episodes, 1)
            out[f"{name}_5way_3shot"] = few_shot(emb, labels, 5, 3, episodes, 1)
    return out


# ------------------------------------------------------------------ export
def export(model: nn.Module, out_dir: Path, name: str, trained_labels: list[str], notes: str, results: dict,
           rotations=(0.0,), members: list | None = None, version: str = "1.0.0", validation_alphabets=()):
    out_dir.mkdir(parents=True, exist_ok=True)
    layers = model.spec_layers()
    sd = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}
    names = [n for l in layers for n in l.get("weights", {}).values()]
    spec = {
        "format": FORMAT, "formatVersion": 1, "name": name, "version": version,
        "description": f"28x28 sketch embedding ({model.dim}-d, L2-normalised) for personal shortcuts and few-shot learning",
        "input": {"kind": "raster", "shape": [1, 28, 28],
                  "raster": {"size": 28, "recipe": "quickdraw", "scale": 1.0 / 255.0},
                  "embeddingRotations": list(rotations)},
        "labels": [],
        "outputs": {"embedding": "embedding"},
        "layers": layers,
        "training": {"data": f"{OMNIGLOT_ATTRIBUTION}; Quick, Draw! dataset by Google, licensed under CC BY 4.0",
                     "notes": notes, "results": results, "labels": sorted(set(trained_labels))},
    }
    if members:
        spec["training"]["members"] = members
    if validation_alphabets:
        spec["training"]["validationAlphabets"] = list(validation_alphabets)
    write_safetensors(out_dir / f"{name}.safetensors", {n: sd[n] for n in names},
                      {"format": FORMAT, "name": name, "version": version})
    (out_dir / f"{name}.json").write_text(json.dumps(spec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


# ------------------------------------------------------------------ parity fixture
def load_embedding(models_dir: Path, name: str) -> nn.Module:
    """The exported embedding model (one, or an ensemble of several) as a PyTorch module (eval mode)."""
    from .export import read_safetensors
    spec = json.loads((models_dir / f"{name}.json").read_text(encoding="utf-8"))
    weights, _ = read_safetensors(models_dir / f"{name}.safetensors")

    def member(prefix: str) -> SketchEmbedding:
        own = [l for l in spec["layers"] if l["name"].startswith(prefix)]
        widths = tuple(l["params"]["outChannels"] for l in own if l["type"] == "conv2d")
        pooled = [int(l["name"][len(prefix) + len("blockmax"):]) for l in own
                  if l["type"] == "maxpool2d" and l["name"][len(prefix):].startswith("blockmax")]
        return SketchEmbedding(widths, next(l["params"]["outFeatures"] for l in own if l["type"] == "dense"), pooled_blocks=pooled)

    count = len(spec.get("training", {}).get("members", []))
    model = EmbeddingEnsemble([member(f"m{i}_") for i in range(count)]) if count else member("")
    missing, unexpected = model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()}, strict=False)
    if unexpected or any(not k.endswith("num_batches_tracked") for k in missing):
        raise ValueError(f"{name}: weights do not match its layers (missing {missing}, unexpected {unexpected})")
    return model.eval()


def evaluation_sets(data: Path, eval_zip: str, trained_alphabets) -> tuple[list, list]:
    """The drawings of the few-shot measures: the Omniglot alphabets of ``eval_zip`` that were not
    trained on, and the held-out Quick, Draw! classes."""
    return (load_omniglot(data / "omniglot" / eval_zip, skip_alphabets=trained_alphabets),
            load_quickdraw(data, held_out=True, per_class=20))


def combine(paths: list[Path], out_dir: Path, name: str, rotations, episodes: int, data: Path, eval_zip: str,
            version: str, train_zip: str, pooled_blocks=()):
    """Exports the ensemble of exported embeddings ``paths`` (each PATH.json/.safetensors) as one
    model, with its few-shot results on the members' evaluation sets. An exported ensemble among
    ``paths`` gives its own members, so a member can be added to a shipped ensemble. Alphabets that
    every member kept out of training for validation are measured too."""
    specs = [json.loads(p.with_suffix(".json").read_text(encoding="utf-8")) for p in paths]
    members, member_info = [], []
    for path, spec in zip(paths, specs):
        loaded = load_embedding(path.parent, path.name)
        if isinstance(loaded, EmbeddingEnsemble):
            members += list(loaded.members)
            member_info += spec["training"]["members"]
        else:
            members.append(loaded)
            member_info.append({"notes": spec["training"]["notes"], "results": spec["training"]["results"]})
    for member in members:
        member.pool_blocks(pooled_blocks)
    model = EmbeddingEnsemble(members)
    trained = sorted({l for s in specs for l in s["training"]["labels"]})
    validation_alphabets = sorted(set.intersection(*(set(s["training"].get("validationAlphabets", [])) for s in specs)))
    eval_omni, eval_qd = evaluation_sets(data, eval_zip, sorted({alphabet(l) for l in trained if "/" in l}) + validation_alphabets)
    eval_sets = {"omniglot": eval_omni, "quickdraw": eval_qd}
    if validation_alphabets:
        eval_sets["validation"] = split_by_alphabet(load_omniglot(data / "omniglot" / train_zip), validation_alphabets)[0]
    results = evaluate(model, eval_sets, episodes, rotations)
    pooled_note = (f", each with its block {', '.join(map(str, pooled_blocks))} output max-pooled over the map as a unit vector too"
                   if pooled_blocks else "")
    notes = f"An ensemble of {len(members)} embeddings{pooled_note} (unit vectors concatenated, normalised again); " + " ".join(
        f"Member {i + 1}: {m['notes']}" for i, m in enumerate(member_info))
    export(model, out_dir, name, trained, notes, {k: round(v, 4) for k, v in results.items()}, rotations,
           members=member_info, version=version, validation_alphabets=validation_alphabets)
    print(f"ensemble of {len(members)}, turned by {rotations}: " + "  ".join(f"{k} {v:.3f}" for k, v in results.items()))


def write_fixture(models_dir: Path, name: str, out: Path):
    """``<out>/<name>.json``: synthetic drawings (training/sketchwise_training/fixtures.py's), their inputs and the
    PyTorch embeddings of the exported model, for the Swift parity test."""
    from .fixtures import synthetic_drawings
    model = load_embedding(models_dir, name)
    rotations = json.loads((models_dir / f"{name}.json").read_text(encoding="utf-8"))["input"].get("embeddingRotations", [0])
    rng = np.random.default_rng(8)
    cases = [{"name": n, "kind": "drawing", "strokes": st, "x": raster.render(st).astype(np.float32)[None] / np.float32(255.0)}
             for n, st in synthetic_drawings(7)]
    cases += [{"name": f"noise-{k}", "kind": "noise", "strokes": None, "x": rng.random((1, 28, 28), dtype=np.float32)} for k in range(2)]
    with torch.no_grad():
        emb = model(torch.from_numpy(np.stack([c["x"] for c in cases]))).numpy()
    for c in cases:
        if c["strokes"] is not None:
            turned = embed(model, [[[np.asarray(r, np.float64) for r in st] for st in c["strokes"]]], views=tuple(rotations))
            c["sketchEmbedding"] = [float(v) for v in turned[0]]
    doc = {"model": name, "tolerance": 1e-4, "outputs": ["embedding"], "embeddingRotations": rotations, "cases": [
        {"name": c["name"], "kind": c["kind"],
         "strokes": None if c["strokes"] is None else [[[float(v) for v in row] for row in stroke] for stroke in c["strokes"]],
         "input": {"shape": list(c["x"].shape), "data": [float(v) for v in c["x"].ravel()]},
         "logits": [], "embedding": [float(v) for v in e], "answer": [], "sketchEmbedding": c.get("sketchEmbedding")}
        for c, e in zip(cases, emb)]}
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(doc) + "\n", encoding="utf-8")
    print(f"wrote {out / name}.json ({len(cases)} cases)")


# ------------------------------------------------------------------ training
def pseudo_items(args, unseen_omni, classes: dict, device: torch.device) -> list:
    """Training items of the pseudo-classes clustered from ``args.unlabelled`` (each cluster in
    its eight symmetries: the item's class is the base of eight, its symmetry drawn per batch),
    without possible copies of the ``unseen_omni`` drawings (evaluation and validation). The
    clustering embedding runs on ``device``."""
    t0 = time.time()
    drawings, dropped = pseudo_labels.load_unlabelled(args.data / "omniglot" / args.unlabelled, [d for _, d in unseen_omni],
                                                      limit=1000 if args.smoke else None)
    total = len(drawings) + dropped
    drawings = [s for s in (qd.simplify_strokes(d) for d in drawings) if s]
    teacher = load_embedding(args.cluster_model.parent, args.cluster_model.name).to(device)
    labels = pseudo_labels.pseudo_classes(embed(teacher, drawings, views=(0.0, -10.0, 10.0)))
    base = {}
    for c in sorted(set(labels) - {-1}):
        base[c] = len(classes)
        for k in range(8):
            classes[f"unlabelled/{c}@{k}"] = len(classes)
    items = [(base[c], s, ANY_SYMMETRY, OMNIGLOT_AUG) for c, s in zip(labels, drawings) if c >= 0]
    print(f"unlabelled: {total} drawings, {dropped} dropped as possible copies of evaluation or validation "
          f"drawings; {len(items)} in {len(base)} pseudo-classes (x8 symmetries), {time.time() - t0:.0f}s", flush=True)
    return items


def with_symmetry(item, rng):
    """A pseudo-class item (``ANY_SYMMETRY``) in a random one of its eight symmetries; others as they are."""
    c, strokes, k, cfg = item
    if k != ANY_SYMMETRY:
        return item
    k = int(rng.integers(8))
    return c + k, strokes, k, cfg


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # the options several jobs share
    corpus = argparse.ArgumentParser(add_help=False)
    corpus.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    corpus.add_argument("--train-zip", default="strokes_background_small1.zip")
    corpus.add_argument("--eval-zip", default="strokes_background_small2.zip")
    corpus.add_argument("--episodes", type=int, default=1000)
    corpus.add_argument("--threads", type=int, default=1)
    validation = argparse.ArgumentParser(add_help=False)
    validation.add_argument("--validation-alphabets", default="", metavar="NAMES",
                            help="alphabets of the training zip kept out of training (comma-separated), their few-shot "
                                 "accuracy printed as validation_*: the measure to choose settings by, so that the "
                                 "evaluation alphabets stay untouched")
    exported = argparse.ArgumentParser(add_help=False)
    exported.add_argument("--out", type=Path, default=MODELS, help="the folder to export into (default Models/)")
    exported.add_argument("--name", default="sketch-embedding")
    exported.add_argument("--model-version", default="1.0.0",
                          help="the exported spec's version (stored shortcut examples are embedded again when it changes)")
    exported.add_argument("--embedding-rotations", default="0,-10,10", metavar="DEGREES",
                          help="the exported spec's embeddingRotations: the runtime embeds a drawing as the normalised mean "
                               "of it turned by these angles; the final results are measured so")
    exported.add_argument("--pooled-blocks", default="", metavar="BLOCKS",
                          help="conv blocks (1-based, comma-separated) whose output, max-pooled over the whole map, joins "
                               "the exported embedding (SketchEmbedding.pool_blocks); the shipped model uses 3")
    model = argparse.ArgumentParser(add_help=False)
    model.add_argument("--models", type=Path, default=MODELS, help="the folder of the exported model (default Models/)")
    model.add_argument("--name", default="sketch-embedding")

    t = sub.add_parser("train", parents=[corpus, validation, exported], help="train an embedding and export it as --out/--name")
    t.add_argument("--minutes", type=float, default=35.0)
    t.add_argument("--batch", type=int, default=128)
    t.add_argument("--lr", type=float, default=2e-3)
    t.add_argument("--qd-per-class", type=int, default=60)
    t.add_argument("--qd-bitmaps", type=int, default=0, metavar="N",
                   help="also up to N of Google's bitmaps per trained Quick, Draw! class (bitmap/*.npy), "
                        "under a small random affine")
    t.add_argument("--weight-decay", type=float, default=5e-4)
    t.add_argument("--widths", default="32,64,128,256", help="channels of the four conv blocks")
    t.add_argument("--dropout", type=float, default=0.0, help="dropout before the projection (training only)")
    t.add_argument("--warp", type=float, default=7.0, help="amplitude of the smooth random warp (0..255 units)")
    t.add_argument("--unlabelled", default="", metavar="NPZ",
                   help="also learn pseudo-classes clustered from this Omniglot stroke-3 file (in the data's omniglot folder)")
    t.add_argument("--cluster-model", type=Path, default=MODELS / "sketch-embedding",
                   metavar="PATH", help="the exported embedding (PATH.json/.safetensors) that clusters --unlabelled")
    t.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="where to train (auto: CUDA when present)")
    t.add_argument("--precision", choices=PRECISIONS, default="auto", help=PRECISION_HELP)
    t.add_argument("--renderer", choices=("auto",) + RENDERERS, default="auto",
                   help="how training drawings are rendered: cairo on the CPU, or tensor operations on the device "
                        "(auto: tensor on CUDA, cairo on the CPU)")
    t.add_argument("--smoke", action="store_true", help="a tiny run on a few classes (tests)")
    t.add_argument("--seed", type=int, default=1)

    e = sub.add_parser("evaluate", parents=[corpus, validation, model], help="the few-shot measures of an exported --models/--name")
    e.add_argument("--views", default="0", help="test-time rotations (degrees, comma-separated) averaged over")

    c = sub.add_parser("combine", parents=[corpus, exported],
                       help="export the ensemble of exported embeddings (or of the members of exported ensembles) as --out/--name")
    c.add_argument("paths", type=Path, nargs="+", metavar="PATH", help="an exported embedding: PATH.json/.safetensors")

    f = sub.add_parser("fixture", parents=[model], help="write the parity fixture of an exported --models/--name into FOLDER")
    f.add_argument("folder", type=Path, metavar="FOLDER")
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    warn_if_torch_differs()
    if args.command == "fixture":
        return write_fixture(args.models, args.name, args.folder)
    torch.set_num_threads(args.threads)
    if args.command == "combine":
        return combine(args.paths, args.out, args.name, tuple(float(v) for v in args.embedding_rotations.split(",")),
                       args.episodes, args.data, args.eval_zip, args.model_version, args.train_zip,
                       tuple(int(b) for b in args.pooled_blocks.split(",") if b))
    if args.command == "train":
        torch.manual_seed(args.seed)
    started = time.time()
    omni_dir = args.data / "omniglot"
    train_omni = load_omniglot(omni_dir / args.train_zip)
    validation_alphabets = sorted(a for a in args.validation_alphabets.split(",") if a)
    validation, train_omni = split_by_alphabet(train_omni, validation_alphabets)
    missing = set(validation_alphabets) - {alphabet(l) for l, _ in validation}
    if missing:
        sys.exit(f"--validation-alphabets: {', '.join(sorted(missing))} not in {args.train_zip}")
    trained_alphabets = sorted({alphabet(l) for l, _ in train_omni})
    eval_omni, eval_qd = evaluation_sets(args.data, args.eval_zip, trained_alphabets + validation_alphabets)
    if args.command == "evaluate":
        eval_sets = {"omniglot": eval_omni, "quickdraw": eval_qd} | ({"validation": validation} if validation else {})
        views = tuple(float(v) for v in args.views.split(","))
        results = evaluate(load_embedding(args.models, args.name), eval_sets, args.episodes, views)
        return print(f"views {views}: " + "  ".join(f"{k} {v:.3f}" for k, v in results.items()))
    train(args, started, train_omni, validation, validation_alphabets, trained_alphabets, eval_omni, eval_qd)


def train(args, started: float, train_omni, validation, validation_alphabets, trained_alphabets, eval_omni, eval_qd):
    """The ``train`` job on the drawings ``main`` loaded (its time budget counted from ``started``),
    exported as ``args.out / args.name``."""
    rng = np.random.default_rng(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    pooled_blocks = tuple(int(b) for b in args.pooled_blocks.split(",") if b)
    train_qd = load_quickdraw(args.data, held_out=False, per_class=args.qd_per_class)
    train_bitmaps = load_quickdraw_bitmaps(args.data, args.qd_bitmaps)
    if args.smoke:
        keep = sorted({l for l, _ in train_omni})[:10]
        train_omni = [x for x in train_omni if x[0] in keep]
        keep = sorted({l for l, _ in train_qd})[:10]
        train_qd = [x for x in train_qd if x[0] in keep]
        train_bitmaps = [x for x in train_bitmaps if x[0] in keep]
        eval_omni, eval_qd, validation = eval_omni[:200], eval_qd[:200], validation[:200]
        args.minutes, args.episodes = min(args.minutes, 0.3), 50
    eval_sets = {"omniglot": eval_omni, "quickdraw": eval_qd} | ({"validation": validation} if validation else {})
    # training items: (class index, strokes, quarter turns, augmentation)
    classes: dict[str, int] = {}
    items = []
    for label, strokes in train_omni:
        for k in range(8):
            items.append((classes.setdefault(f"{label}@{k}", len(classes)), strokes, k, OMNIGLOT_AUG))
    for label, strokes in train_qd:
        items.append((classes.setdefault(label, len(classes)), strokes, 0, QD_AUG))
    items += [(classes.setdefault(label, len(classes)), bitmap, BITMAP, None) for label, bitmap in train_bitmaps]
    device = pick_device(args.device)
    pseudo = pseudo_items(args, eval_omni + validation, classes, device) if args.unlabelled else []
    items += pseudo
    print(f"training: {len(train_omni)} Omniglot drawings ({len(trained_alphabets)} alphabets, x8 symmetries), "
          f"{len(train_qd)} Quick, Draw! drawings, {len(train_bitmaps)} Quick, Draw! bitmaps; {len(classes)} classes, "
          f"{len(items)} items", flush=True)
    print(f"evaluation: {len(eval_omni)} Omniglot drawings of {len({l for l, _ in eval_omni})} unseen characters, "
          f"{len(eval_qd)} Quick, Draw! drawings of {len({l for l, _ in eval_qd})} unseen classes", flush=True)
    if validation:
        print(f"validation: {len(validation)} Omniglot drawings of {len({l for l, _ in validation})} characters "
              f"({', '.join(validation_alphabets)}), kept out of training", flush=True)

    renderer = args.renderer if args.renderer != "auto" else ("tensor" if device.type == "cuda" else "cairo")
    precision = resolve_precision(device, args.precision)
    autocast = autocast_on(device, precision)
    print(f"device {device} ({precision}), training drawings rendered by {renderer}", flush=True)
    model = SketchEmbedding(tuple(int(w) for w in args.widths.split(",")), dropout=args.dropout).to(device)
    head = CosFaceHead(model.proj_dim, len(classes)).to(device)
    params = list(model.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=args.weight_decay)
    per_epoch = len(items)
    # the schedule's length comes from the time budget and the epochs' median pace; it is planned
    # again after every epoch of its first half, so a machine busy during an epoch or two does not
    # cut (or stretch) the whole run
    budget = args.minutes * 60
    epoch, total_epochs = 0, None
    epoch_seconds = []
    step, total_steps = 0, None
    while True:
        t0 = time.time()
        model.train()
        order = rng.permutation(per_epoch)
        loss_sum, n = 0.0, 0
        for b in range(0, per_epoch, args.batch):
            batch = [items[i] for i in order[b:b + args.batch]]
            batch = [with_symmetry(item, rng) for item in batch]
            x = training_images(batch, rng, gen, args.warp, renderer, device)
            y = torch.tensor([c for c, _, _, _ in batch], device=device)
            if total_steps:
                lr = args.lr * 0.5 * (1 + math.cos(math.pi * min(step / total_steps, 1.0)))
                for g in opt.param_groups:
                    g["lr"] = lr
            with autocast():
                loss = F.cross_entropy(head(model.project(x), y).float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += float(loss.detach()) * len(batch)
            n += len(batch)
            step += 1
        epoch += 1
        epoch_seconds.append(time.time() - t0)
        if total_epochs is None or epoch <= total_epochs // 2:
            pace = float(np.median(epoch_seconds))
            total_epochs = epoch + max(0, int((budget - (time.time() - started)) / pace))
            total_steps = total_epochs * math.ceil(per_epoch / args.batch)
        msg = f"epoch {epoch}/{total_epochs}  loss {loss_sum / n:.3f}  {time.time() - t0:.0f}s"
        if epoch % 5 == 0 or epoch >= total_epochs:
            r = evaluate(model, eval_sets, 300 if epoch < total_epochs else args.episodes)
            msg += "  " + "  ".join(f"{k} {v:.3f}" for k, v in r.items())
        print(msg, flush=True)
        if epoch >= total_epochs:
            break
    rotations = tuple(float(v) for v in args.embedding_rotations.split(","))
    model.cpu()
    model.pool_blocks(pooled_blocks)
    single = evaluate(model, eval_sets, args.episodes)
    results = evaluate(model, eval_sets, args.episodes, rotations)
    print("one view: " + "  ".join(f"{k} {v:.3f}" for k, v in single.items()), flush=True)
    minutes = (time.time() - started) / 60
    pseudo_note = (f"; {len({c for c, _, _, _ in pseudo})} pseudo-classes (x8 symmetries) clustered from {args.unlabelled} "
                   f"by {args.cluster_model.name}, without the drawings that may be copies of evaluation drawings"
                   if pseudo else "")
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else f"{args.threads} CPU thread(s)"
    notes = (f"Trained by sketchwise_training.embedding for {epoch} epochs ({minutes:.1f} min on {where}; drawings "
             f"rendered by {renderer}): "
             f"cosine softmax (scale {head.scale:g}, margin {head.margin:g}; dropout {args.dropout:g}, weight decay "
             f"{args.weight_decay:g}, warp {args.warp:g}) over {len(classes)} classes (Omniglot {', '.join(trained_alphabets)} "
             f"from {args.train_zip}, each character in its eight symmetries (quarter turns, mirrored or not); "
             f"{len({l for l, _ in train_qd})} Quick, Draw! classes, up to {args.qd_per_class} drawings each"
             + (f" and {len(train_bitmaps)} of Google's bitmaps of {len({l for l, _ in train_bitmaps})} of them" if train_bitmaps else "")
             + f"{pseudo_note}). Unseen for "
             f"evaluation: the other alphabets of {args.eval_zip} and {len({l for l, _ in eval_qd})} held-out Quick, Draw! classes."
             + (f" Kept out of training for validation: {', '.join(validation_alphabets)}." if validation else ""))
    trained = [l for l, _ in train_omni] + [l for l, _ in train_qd] + [l for l, _ in train_bitmaps]
    export(model, args.out, args.name, trained, notes, {k: round(v, 4) for k, v in results.items()}, rotations,
           version=args.model_version, validation_alphabets=validation_alphabets)
    print(f"done in {minutes:.1f} min, turned by {rotations}: " + "  ".join(f"{k} {v:.3f}" for k, v in results.items()), flush=True)
    print(f"wrote {args.out / args.name}.json and .safetensors", flush=True)


if __name__ == "__main__":
    main()
