"""The training split on disk: flat arrays with offsets per drawing and per class, read
memory-mapped, so that training on Google's full data (50 million drawings) never holds the
drawings as Python objects.

Built once from ``<data>/quickdraw`` (:func:`build_index`, streaming class by class, with
progress); opened with :class:`DrawingIndex` from its folder (memory-mapped) or from the one
compressed file :func:`pack` makes of it (loaded whole: how the split travels to a training
machine that cannot see the data).

Parts: ``train`` (stroke drawings grouped by class; a drawing present as raw and simplified
is kept in both variants), ``val-raw``, ``val-simplified``, ``val-npz``, ``val-extra``; Google's
bitmaps as ``bitmaps-train`` (grouped by class) and ``bitmaps-val``. For each stroke part:

* ``points`` ``[M, 2]`` uint8: Google-simplified x, y (integers 0..255 by construction),
* ``strokes`` ``[M]`` uint8: the stroke number of each point within its drawing (255 at most),
* ``offsets`` ``[N + 1]`` int64: drawing ``i`` is ``points[offsets[i]:offsets[i + 1]]``,
* ``labels`` ``[N]`` int16,

and for grouped parts ``class_offsets`` ``[classes + 1]``: class ``c`` is drawings
``class_offsets[c]:class_offsets[c + 1]``. Bitmap parts hold ``images`` ``[N, 784]`` uint8 and
``labels``. Sizes and classes are in ``meta.json``.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Callable

import numpy as np

from . import quickdraw as qd
from .corpus import class_bitmaps, iter_class_drawings

FORMAT = "sketchwise-drawing-index"
VERSION = 1
STROKE_PARTS = ("train", "val-raw", "val-simplified", "val-npz", "val-extra")
BITMAP_PARTS = ("bitmaps-train", "bitmaps-val")
_DTYPES = {"points": np.uint8, "strokes": np.uint8, "offsets": np.int64, "labels": np.int16,
           "class_offsets": np.int64, "images": np.uint8}
_WIDTH = {"points": 2, "images": 784}


def quantize(strokes) -> tuple[np.ndarray, np.ndarray]:
    """A Google-simplified drawing as ``(points [M, 2] uint8, stroke numbers [M] uint8)``;
    coordinates are rounded and kept inside 0..255, stroke numbers stop at 255."""
    xy = np.concatenate([np.stack([np.asarray(s[0], np.float64), np.asarray(s[1], np.float64)], 1) for s in strokes])
    numbers = np.concatenate([np.full(len(s[0]), min(i, 255), np.uint8) for i, s in enumerate(strokes)])
    return np.clip(np.rint(xy), 0, 255).astype(np.uint8), numbers


class _PartWriter:
    """Appends one part's arrays to raw files; ``close`` returns its sizes for ``meta.json``."""

    def __init__(self, folder: Path, part: str, fields: tuple[str, ...]):
        self.folder, self.part = folder, part
        self.files = {f: open(folder / f"{part}.{f}", "wb") for f in fields}
        self.count, self.points = 0, 0
        self.class_offsets = [0]
        if "offsets" in self.files:
            self.files["offsets"].write(np.zeros(1, np.int64).tobytes())

    def add_drawing(self, label: int, points: np.ndarray, strokes: np.ndarray):
        self.files["points"].write(points.tobytes())
        self.files["strokes"].write(strokes.tobytes())
        self.points += len(points)
        self.files["offsets"].write(np.array([self.points], np.int64).tobytes())
        self.files["labels"].write(np.array([label], np.int16).tobytes())
        self.count += 1

    def add_images(self, label: int, images: np.ndarray):
        self.files["images"].write(np.ascontiguousarray(images, np.uint8).tobytes())
        self.files["labels"].write(np.full(len(images), label, np.int16).tobytes())
        self.count += len(images)

    def end_class(self):
        self.class_offsets.append(self.count)

    def close(self, grouped: bool) -> dict:
        for f in self.files.values():
            f.close()
        if grouped:
            np.asarray(self.class_offsets, np.int64).tofile(self.folder / f"{self.part}.class_offsets")
        return {"count": self.count, "points": self.points}


def build_index(data: Path, out: Path, fraction: float = qd.VAL_FRACTION, classes_limit: int | None = None,
                per_class_limit: int | None = None, log: Callable[[str], None] = print) -> Path:
    """Stream every Quick, Draw! file under ``<data>/quickdraw`` into an index folder ``out``
    (written beside and renamed into place, so a stopped build leaves no half index)."""
    qdir = Path(data) / "quickdraw"
    classes = qd.load_categories(qdir)
    use = classes if classes_limit is None else classes[:classes_limit]
    out = Path(out)
    tmp = out.with_name(out.name + f".{os.getpid()}.partial")
    tmp.mkdir(parents=True, exist_ok=False)
    stroke_writers = {p: _PartWriter(tmp, p, ("points", "strokes", "offsets", "labels")) for p in STROKE_PARTS}
    bitmap_writers = {p: _PartWriter(tmp, p, ("images", "labels")) for p in BITMAP_PARTS}
    t0, last = time.time(), 0.0
    for ci, cname in enumerate(use):
        label = classes.index(cname)
        for subset, _, is_val, strokes in iter_class_drawings(qdir, cname, fraction, per_class_limit):
            points, numbers = quantize(strokes)
            stroke_writers[f"val-{subset}" if is_val else "train"].add_drawing(label, points, numbers)
        train_bm, val_bm = class_bitmaps(qdir, cname, fraction, per_class_limit)
        bitmap_writers["bitmaps-train"].add_images(label, train_bm)
        bitmap_writers["bitmaps-val"].add_images(label, val_bm)
        stroke_writers["train"].end_class()
        bitmap_writers["bitmaps-train"].end_class()
        if time.time() - last > 10 or ci + 1 == len(use):
            last = time.time()
            log(f"index: {ci + 1}/{len(use)} classes, {stroke_writers['train'].count:,} training drawings, "
                f"{bitmap_writers['bitmaps-train'].count:,} bitmaps, {last - t0:.0f} s")
    for _ in range(len(use), len(classes)):  # classes past the limit: empty, so offsets cover all labels
        stroke_writers["train"].end_class()
        bitmap_writers["bitmaps-train"].end_class()
    parts = {p: w.close(grouped=p == "train") for p, w in stroke_writers.items()}
    parts.update({p: w.close(grouped=p == "bitmaps-train") for p, w in bitmap_writers.items()})
    meta = {"format": FORMAT, "version": VERSION, "classes": classes, "validationFraction": fraction,
            "source": str(qdir), "parts": parts}
    (tmp / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    if out.exists():
        raise FileExistsError(f"{out} exists; remove it to rebuild the index")
    os.replace(tmp, out)
    return out


class IndexPart:
    """One part of an index: its arrays (memory-mapped or in memory) and per-drawing access."""

    def __init__(self, name: str, arrays: dict[str, np.ndarray]):
        self.name = name
        self.points, self.strokes = arrays.get("points"), arrays.get("strokes")
        self.offsets, self.labels = arrays.get("offsets"), arrays["labels"]
        self.class_offsets, self.images = arrays.get("class_offsets"), arrays.get("images")

    def __len__(self) -> int:
        return len(self.labels)

    def drawing(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Drawing ``i`` as ``(points [n, 2] uint8, stroke numbers [n] uint8)``."""
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.points[a:b], self.strokes[a:b]

    def strokes_of(self, i: int) -> list[list[np.ndarray]]:
        """Drawing ``i`` in Google's stroke format (a list of ``[xs, ys]``)."""
        points, numbers = self.drawing(i)
        cuts = np.flatnonzero(np.diff(numbers.astype(np.int16))) + 1
        return [[p[:, 0].astype(np.float64), p[:, 1].astype(np.float64)] for p in np.split(points, cuts)]


class DrawingIndex:
    """An index folder (memory-mapped) or a packed ``.npz`` file (in memory)."""

    def __init__(self, path: Path):
        path = Path(path)
        if path.is_dir():
            self.meta = json.loads((path / "meta.json").read_text())
            load = lambda part, field: _map(path / f"{part}.{field}", field)  # noqa: E731
        else:
            packed = np.load(path)
            self.meta = json.loads(bytes(packed["meta.json"]).decode())
            load = lambda part, field: packed[f"{part}.{field}"]  # noqa: E731
        if self.meta.get("format") != FORMAT or self.meta.get("version") != VERSION:
            raise ValueError(f"{path}: not a drawing index of version {VERSION}")
        self.classes: list[str] = self.meta["classes"]
        self.parts: dict[str, IndexPart] = {}
        for part in STROKE_PARTS:
            fields = ("points", "strokes", "offsets", "labels") + (("class_offsets",) if part == "train" else ())
            self.parts[part] = IndexPart(part, {f: load(part, f) for f in fields})
        for part in BITMAP_PARTS:
            fields = ("images", "labels") + (("class_offsets",) if part == "bitmaps-train" else ())
            self.parts[part] = IndexPart(part, {f: load(part, f) for f in fields})

    def __getitem__(self, part: str) -> IndexPart:
        return self.parts[part]


def _map(file: Path, field: str) -> np.ndarray:
    dtype = _DTYPES[field]
    if file.stat().st_size == 0:
        return np.zeros((0, _WIDTH[field]) if field in _WIDTH else 0, dtype)
    a = np.memmap(file, dtype=dtype, mode="r")
    return a.reshape(-1, _WIDTH[field]) if field in _WIDTH else a


def pack(index_dir: Path, out_file: Path) -> Path:
    """The whole index as one compressed ``.npz`` (the training split travels as one file)."""
    index_dir = Path(index_dir)
    arrays = {"meta.json": np.frombuffer((index_dir / "meta.json").read_bytes(), np.uint8)}
    for file in sorted(index_dir.iterdir()):
        if file.name != "meta.json":
            arrays[file.name] = _map(file, file.suffix[1:])
    np.savez_compressed(out_file, **arrays)
    return Path(out_file)
