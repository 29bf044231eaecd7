"""Pseudo-classes from unlabelled Omniglot drawings, for the shortcut embedding.

``omniglot-unlabelled-stroke3.npz`` holds 32,000 Omniglot characters without labels, in
Sketch-RNN's stroke-3 form. Most of the evaluation alphabets' drawings are among them (their
copies are simplified and quantised, so not byte-identical), so before anything is learnt from
them every drawing that could be a copy of an evaluation drawing is dropped. Two drawings are
compared by their outlines (points every 0.01 along the strokes, scaled by the bounding box): the
larger of the two mean distances from one's points to the other's nearest. For each evaluation
drawing, the ``NEAR_RASTERS`` candidates of the most similar 28x28 raster are compared so, and

* those within ``COPY_MATCH`` of it are its copies: 2,020 of the 2,120 evaluation drawings have
  one (their nearest: median 0.009), while their next nearest, another drawing, lies at a median
  of 0.037;
* an evaluation drawing without such a copy loses every candidate within ``2 * COPY_MATCH`` or
  with a raster within cosine ``RASTER_MATCH`` of its own: looser than a different person's
  drawing of the same character usually is (median best match 0.67).

This drops 3,197 of the 32,000 drawings; the looser rule before it (any raster within
``RASTER_MATCH`` of any evaluation drawing, or the same stroke ends) dropped 12,596.

The rest are embedded by a first model and grouped by spherical k-means into about one cluster
per 20 drawings (Omniglot has 20 drawers per character); each cluster's members closest to its
centre form a pseudo-class, trained on like a labelled character.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sketchwise_data import quickdraw as qd  # noqa: E402
from sketchwise_data import raster  # noqa: E402

COPY_MATCH = 0.03
RASTER_MATCH = 0.6
NEAR_RASTERS = 30
OUTLINE_STEP = 0.01


def outline(strokes) -> np.ndarray:
    """Points every ``OUTLINE_STEP`` along the strokes, scaled by the drawing's bounding box: ``(n, 2)``."""
    lines = [np.stack([np.asarray(s[0], np.float64), np.asarray(s[1], np.float64)], axis=1) for s in strokes]
    every = np.concatenate(lines)
    low = every.min(axis=0)
    side = max(float((every.max(axis=0) - low).max()), 1e-6)
    points = []
    for line in lines:
        line = (line - low) / side
        points.append(line[:1])
        for a, b in zip(line[:-1], line[1:]):
            n = max(int(np.ceil(np.linalg.norm(b - a) / OUTLINE_STEP)), 1)
            points.append(a + (b - a) * (np.arange(1, n + 1)[:, None] / n))
    return np.concatenate(points)


def outline_distance(a: np.ndarray, b: np.ndarray) -> float:
    """The larger of the mean distances from ``a``'s points to ``b``'s nearest and back."""
    d = torch.cdist(torch.from_numpy(a), torch.from_numpy(b))
    return max(float(d.min(dim=1).values.mean()), float(d.min(dim=0).values.mean()))


def unit_rasters(drawings) -> np.ndarray:
    """28x28 rasters as unit vectors ``(n, 784)``."""
    x = raster.render_batch(drawings).reshape(len(drawings), -1).astype(np.float32)
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-6)


def possible_copies(candidates: list, references: list) -> np.ndarray:
    """Mask of ``candidates`` (strokes) that may be a copy of one of ``references`` (strokes)."""
    hit = np.zeros(len(candidates), bool)
    cand, ref = unit_rasters(candidates), unit_rasters(references)
    outlines: dict[int, np.ndarray] = {}
    for b in range(0, len(ref), 256):
        similarity = ref[b:b + 256] @ cand.T
        for r, cos in enumerate(similarity, start=b):
            near = np.argsort(-cos)[:NEAR_RASTERS]
            own = outline(references[r])
            distance = np.array([outline_distance(own, outlines.setdefault(c, outline(candidates[c]))) for c in near])
            copies = near[distance < COPY_MATCH]
            if len(copies):
                hit[copies] = True
            else:
                hit[near[distance < 2 * COPY_MATCH]] = True
                hit[cos >= RASTER_MATCH] = True
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
