"""Pseudo-classes from unlabelled Omniglot drawings, for the shortcut embedding.

``omniglot-unlabelled-stroke3.npz`` holds 32,000 Omniglot characters without labels, in
Sketch-RNN's stroke-3 form. Most of the evaluation alphabets' drawings are among them (their
copies are simplified and quantised, so not byte-identical), so before anything is learnt from
them every drawing that could be a copy of an evaluation drawing is dropped:

* the same number of strokes with every stroke's start and end within ``STROKE_MATCH`` of the
  evaluation drawing's (both scaled to their bounding box), or
* a 28x28 raster within cosine ``RASTER_MATCH`` of an evaluation drawing's: looser than a
  different person's drawing of the same character usually is (median best match 0.67), so
  what remains is further from every evaluation drawing than such a drawing.

The rest are embedded by a first model and grouped by spherical k-means into about one cluster
per 20 drawings (Omniglot has 20 drawers per character); each cluster's members closest to its
centre form a pseudo-class, trained on like a labelled character.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from sketchwise_data import quickdraw as qd
from sketchwise_data import raster

STROKE_MATCH = 0.1
RASTER_MATCH = 0.6


def stroke_ends(strokes) -> np.ndarray:
    """Every stroke's start and end point, scaled by the drawing's bounding box: ``(strokes, 2, 2)``."""
    xs = np.concatenate([np.asarray(s[0], np.float64) for s in strokes])
    ys = np.concatenate([np.asarray(s[1], np.float64) for s in strokes])
    x0, y0 = xs.min(), ys.min()
    side = max(xs.max() - x0, ys.max() - y0, 1e-6)
    ends = [[[s[0][0], s[1][0]], [s[0][-1], s[1][-1]]] for s in strokes]
    return (np.asarray(ends, np.float64) - [x0, y0]) / side


def unit_rasters(drawings) -> np.ndarray:
    """28x28 rasters as unit vectors ``(n, 784)``."""
    x = raster.render_batch(drawings).reshape(len(drawings), -1).astype(np.float32)
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-6)


def possible_copies(candidates: list, references: list) -> np.ndarray:
    """Mask of ``candidates`` (strokes) that may be a copy of one of ``references`` (strokes)."""
    hit = np.zeros(len(candidates), bool)
    by_count: dict[int, list[int]] = {}
    for i, d in enumerate(candidates):
        by_count.setdefault(len(d), []).append(i)
    groups = {k: (np.asarray(ix), np.stack([stroke_ends(candidates[i]) for i in ix])) for k, ix in by_count.items()}
    for d in references:
        if len(d) in groups:
            ix, ends = groups[len(d)]
            far = np.abs(ends - stroke_ends(d)).reshape(len(ix), -1).max(axis=1)
            hit[ix[far < STROKE_MATCH]] = True
    cand, ref = unit_rasters(candidates), unit_rasters(references)
    for b in range(0, len(cand), 4096):
        hit[b:b + 4096] |= (cand[b:b + 4096] @ ref.T).max(axis=1) >= RASTER_MATCH
    return hit


def load_unlabelled(path: Path, evaluation: list, limit: int | None = None) -> tuple[list, int]:
    """The unlabelled drawings (raw strokes; the first ``limit``) that are not possible copies of
    ``evaluation`` drawings, and how many were dropped."""
    drawings = [s for s in (qd.stroke3_to_strokes(rows) for _, _, rows in qd.load_npz(path)[:limit]) if s]
    dropped = possible_copies(drawings, evaluation)
    return [d for d, drop in zip(drawings, dropped) if not drop], int(dropped.sum())


def spherical_kmeans(x: torch.Tensor, k: int, iterations: int = 30, seed: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """Cluster unit vectors by cosine: ``(assignment, unit centres)``, k-means++ seeded."""
    g = torch.Generator().manual_seed(seed)
    centres = [x[torch.randint(len(x), (1,), generator=g)].squeeze(0)]
    closest = torch.full((len(x),), 2.0)
    for _ in range(1, k):
        closest = torch.minimum(closest, 1 - x @ centres[-1])
        centres.append(x[torch.multinomial(closest.clamp_min(0) + 1e-12, 1, generator=g)].squeeze(0))
    c = torch.stack(centres)
    for _ in range(iterations):
        assign = (x @ c.t()).argmax(1)
        sums = torch.zeros_like(c).index_add_(0, assign, x)
        empty = sums.norm(dim=1) == 0
        c = torch.where(empty[:, None], c, F.normalize(sums, dim=1))
    return (x @ c.t()).argmax(1), c


def pseudo_classes(embeddings: torch.Tensor, per_cluster: int = 20, min_size: int = 4, keep: float = 0.8,
                   seed: int = 1) -> list[int]:
    """A pseudo-class per drawing (-1: left out). Clusters of fewer than ``min_size`` drawings are
    left out, and so is the ``1 - keep`` of each cluster furthest from its centre."""
    assign, centres = spherical_kmeans(embeddings, max(1, len(embeddings) // per_cluster), seed=seed)
    closeness = (embeddings * centres[assign]).sum(1)
    labels = [-1] * len(embeddings)
    next_label = 0
    for c in range(len(centres)):
        members = torch.nonzero(assign == c).flatten()
        if len(members) < min_size:
            continue
        kept = members[closeness[members].argsort(descending=True)[:max(min_size, round(keep * len(members)))]]
        for i in kept.tolist():
            labels[i] = next_label
        next_label += 1
    return labels
