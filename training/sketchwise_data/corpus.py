"""The training corpus: every Quick, Draw! format under ``<data>/quickdraw`` split into train and
validation (rules in :mod:`sketchwise_data.quickdraw`), stroke drawings Google-simplified.

* Raw records are simplified with ``sketchwise_data.simplify`` (the project's Google-exact
  simplifier, exactly what the Swift side runs); simplified records are used as they are;
  npz (stroke-3) drawings go through the same rule as the Swift app (simplified unless they
  are already integer 0..255 drawings, which stroke-3 offsets from the origin rarely are).
* For training, a ``key_id`` present both as raw and as simplified is ONE drawing with two
  variants (our simplification of the raw strokes, Google's simplified copy); each use picks
  one at random. Validation keeps every subset separately (raw / simplified / npz / bitmap).

Built corpora are cached (pickled) under ``$SKETCHWISE_CACHE`` (default
``/tmp/sketchwise_cache``), never inside the repository.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import quickdraw as qd

CACHE_DIR = Path(os.environ.get("SKETCHWISE_CACHE", "/tmp/sketchwise_cache"))


def is_google_simplified(strokes) -> bool:
    """Python twin of Swift's ``GoogleSimplifier.isSimplified`` (minus the time-stamp test:
    callers pass the x/y rows only for data that has none)."""
    any_pt = False
    for s in strokes:
        for row in (s[0], s[1]):
            a = np.asarray(row, dtype=np.float64)
            if a.size:
                any_pt = True
                if not (np.all(a == np.round(a)) and a.min() >= 0 and a.max() <= 255):
                    return False
    return any_pt


def prepare(strokes, has_time: bool = False):
    """What the app does before rendering/encoding: Google-simplify unless already simplified."""
    xy = [[np.asarray(s[0], np.float64), np.asarray(s[1], np.float64)] for s in strokes if len(s[0])]
    if not has_time and is_google_simplified(xy):
        return xy
    return qd.simplify_strokes(strokes)


@dataclass
class Corpus:
    classes: list[str]
    # training stroke drawings: label and 1..2 variants (lists of strokes)
    train_labels: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    train_variants: list = field(default_factory=list)
    train_sources: list = field(default_factory=list)
    # validation subsets: name -> (labels, list of strokes)
    val: dict = field(default_factory=dict)
    bitmap_train: np.ndarray = field(default_factory=lambda: np.zeros((0, 784), np.uint8))
    bitmap_train_labels: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    bitmap_val: np.ndarray = field(default_factory=lambda: np.zeros((0, 784), np.uint8))
    bitmap_val_labels: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    info: dict = field(default_factory=dict)

    def sizes(self) -> dict:
        src = {}
        for s in self.train_sources:
            src[s] = src.get(s, 0) + 1
        return {
            "train_stroke_drawings": len(self.train_variants),
            "train_stroke_by_source": src,
            "train_bitmaps": int(len(self.bitmap_train)),
            **{f"val_{k}": len(v[0]) for k, v in self.val.items()},
            "val_bitmap": int(len(self.bitmap_val)),
        }


def _cache_key(data: Path, fraction: float, classes_limit, per_class_limit) -> str:
    simp = Path(__file__).with_name("simplify.py")
    sig = [str(data.resolve()), fraction, classes_limit, per_class_limit, qd.simplified_is_google(),
           simp.stat().st_mtime if simp.exists() else 0, 3]
    for sub in ("raw", "simplified", "simplified-extra", "sketchrnn", "bitmap"):
        d = data / "quickdraw" / sub
        if d.is_dir():
            sig.append((sub, sorted((p.name, p.stat().st_size, int(p.stat().st_mtime)) for p in d.iterdir())))
    return hashlib.sha1(repr(sig).encode()).hexdigest()[:16]


def iter_class_drawings(qdir: Path, cname: str, fraction: float = qd.VAL_FRACTION,
                        per_class_limit: int | None = None):
    """Every stroke drawing of one class, streamed file by file, as ``(subset, key, is_val,
    strokes)``: subset ``raw``/``simplified``/``extra``/``npz``, ``key`` the drawing's identity
    (a ``key_id`` shared by its raw and simplified copies), strokes Google-simplified."""
    for sub in ("raw", "simplified", "simplified-extra"):
        p = qdir / sub / f"{cname}.ndjson"
        if not p.exists() and sub != "raw":
            p = p.with_suffix(".bin")  # Google's binary form of the simplified drawings
        if not p.exists():
            continue
        subset = "extra" if sub == "simplified-extra" else sub
        for i, rec in enumerate(qd.iter_records(p, limit=per_class_limit)):
            if rec.get("word") not in (None, cname):
                raise ValueError(f"{p}: record of class {rec.get('word')!r}")
            drawing = rec["drawing"]
            if sub == "raw":
                strokes = qd.simplify_strokes(drawing)
            else:
                strokes = [[s[0], s[1]] for s in drawing if len(s[0])]
            if strokes:
                kid, is_val = qd.record_split(rec, sub, cname, i, fraction)
                yield subset, kid, is_val, strokes
    p = qdir / "sketchrnn" / f"{cname}.npz"
    if p.exists():
        for k, i, rows in qd.load_npz(p):
            if per_class_limit is not None and i >= per_class_limit:
                continue
            strokes = prepare(qd.stroke3_to_strokes(rows))
            if strokes:
                yield "npz", f"npz/{cname}/{k}/{i}", qd.is_validation(f"npz/{k}", cname, i, fraction), strokes


def class_bitmaps(qdir: Path, cname: str, fraction: float = qd.VAL_FRACTION,
                  per_class_limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One class's ``numpy_bitmap`` images split into (train, validation), each ``(n, 784)`` uint8."""
    p = qdir / "bitmap" / f"{cname}.npy"
    if not p.exists():
        empty = np.zeros((0, 784), np.uint8)
        return empty, empty
    bm = qd.load_bitmaps(p)
    n = bm.shape[0] if per_class_limit is None else min(bm.shape[0], per_class_limit)
    isval = np.array([qd.is_validation("bitmap", cname, i, fraction) for i in range(n)], bool)
    arr = np.asarray(bm[:n])
    return arr[~isval], arr[isval]


def build_corpus(data: Path = qd.DEFAULT_DATA, fraction: float = qd.VAL_FRACTION,
                 classes_limit: int | None = None, per_class_limit: int | None = None,
                 use_cache: bool = True, log=print) -> Corpus:
    """Load and split everything. ``classes_limit``/``per_class_limit`` make small subsets
    (smoke runs); the label space is always all classes of ``categories.txt``."""
    data = Path(data)
    qdir = data / "quickdraw"
    key = _cache_key(data, fraction, classes_limit, per_class_limit)
    cache = CACHE_DIR / f"corpus_{key}.pkl"
    if use_cache and cache.exists():
        with open(cache, "rb") as f:
            c = pickle.load(f)
        log(f"corpus: loaded cache {cache}")
        return c
    t0 = time.time()
    classes = qd.load_categories(qdir)
    index = {c: i for i, c in enumerate(classes)}
    use = classes if classes_limit is None else classes[:classes_limit]
    corpus = Corpus(classes=classes)
    corpus.info = {"simplifier": "sketchwise_data.simplify", "val_fraction": fraction}
    by_key: dict[str, tuple[int, list, list]] = {}
    val = {"raw": ([], []), "simplified": ([], []), "npz": ([], []), "extra": ([], [])}
    for ci, cname in enumerate(use):
        lab = index[cname]
        for subset, kid, is_val, strokes in iter_class_drawings(qdir, cname, fraction, per_class_limit):
            if is_val:
                val[subset][0].append(lab)
                val[subset][1].append(strokes)
            else:
                ent = by_key.setdefault(kid, (lab, [], []))
                ent[1].append(strokes)
                ent[2].append(subset)
        train_bm, val_bm = class_bitmaps(qdir, cname, fraction, per_class_limit)
        corpus.bitmap_train = np.concatenate([corpus.bitmap_train, train_bm])
        corpus.bitmap_val = np.concatenate([corpus.bitmap_val, val_bm])
        corpus.bitmap_train_labels = np.concatenate([corpus.bitmap_train_labels, np.full(len(train_bm), lab)])
        corpus.bitmap_val_labels = np.concatenate([corpus.bitmap_val_labels, np.full(len(val_bm), lab)])
        if (ci + 1) % 50 == 0:
            log(f"corpus: {ci + 1}/{len(use)} classes, {time.time() - t0:.0f}s")
    labels = []
    for kid, (lab, variants, srcs) in by_key.items():
        labels.append(lab)
        corpus.train_variants.append(variants)
        corpus.train_sources.append("+".join(sorted(set(srcs))) if len(srcs) > 1 else srcs[0])
    corpus.train_labels = np.asarray(labels, np.int64)
    corpus.val = {k: (np.asarray(v[0], np.int64), v[1]) for k, v in val.items()}
    log(f"corpus: built in {time.time() - t0:.0f}s: {corpus.sizes()}")
    if use_cache:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            pickle.dump(corpus, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
    return corpus


if __name__ == "__main__":  # python3 -m sketchwise_data.corpus: build and print sizes
    c = build_corpus(log=lambda m: print(m, file=sys.stderr))
    print(c.sizes())
