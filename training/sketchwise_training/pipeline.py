"""Batches for training and evaluation: class-balanced sampling, augmentation re-drawn every
epoch, rendering with the project's cairo recipe and sequence encoding with sequence.py."""
from __future__ import annotations

import math

import numpy as np
import torch
from torch.utils.data import Dataset

from sketchwise_data import raster, sequence
from sketchwise_data.augment import AugmentConfig, augment_strokes

MAX_LENGTH = 128
NORMALIZATION = "uniform"
BITMAP_SIZE = 28  # Google's numpy_bitmap side: only raster models of this size train on bitmaps and read them


def lr_at(step: int, total: int, warmup: int, peak: float) -> float:
    """The learning rate at ``step`` of ``total``: linear warm-up to ``peak``, then a cosine to 0."""
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total - warmup))))


def reads_bitmaps(channels, size: int) -> bool:
    """Bitmaps train (and at run time reach) only plain-ink raster models of the bitmaps' size: a
    bitmap has no stroke order, and resampling it would give it a look no drawing has."""
    return list(channels) == ["ink"] and size == BITMAP_SIZE


def class_draws(corpus, per_class: int, use_bitmaps: bool, boost_cap: float = 1.0) -> np.ndarray:
    """Draws per class and epoch: ``per_class``, raised for data-rich classes to
    ``per_class * min(boost_cap, sqrt(n_c / median n))`` (0 for classes without training data).
    The sampling prior this implies is removed again at export (logit adjustment)."""
    n = np.bincount(corpus.train_labels, minlength=len(corpus.classes)).astype(float)
    if use_bitmaps:
        n += np.bincount(corpus.bitmap_train_labels, minlength=len(corpus.classes))
    med = float(np.median(n[n > 0])) if (n > 0).any() else 1.0
    boost = np.clip(np.sqrt(n / med), 1.0, max(1.0, boost_cap))
    return np.where(n > 0, np.round(per_class * boost), 0).astype(np.int64)


def balanced_epoch(corpus, per_class, seed: int, epoch: int, use_bitmaps: bool) -> np.ndarray:
    """Rows ``(kind, index)`` (kind 0 = stroke drawing, 1 = bitmap): ``per_class`` draws for every
    class that has training data, uniform over that class's drawings (with replacement when it
    has fewer; without when it has more), shuffled."""
    rng = np.random.default_rng((seed, epoch, 17))
    n_cls = len(corpus.classes)
    pools = [[] for _ in range(n_cls)]
    for i, lab in enumerate(corpus.train_labels):
        pools[lab].append((0, i))
    if use_bitmaps:
        for i, lab in enumerate(corpus.bitmap_train_labels):
            pools[lab].append((1, i))
    rows = []
    draws = np.broadcast_to(np.asarray(per_class), (n_cls,))
    for c, pool in enumerate(pools):
        if not pool or draws[c] <= 0:
            continue
        pool = np.asarray(pool, np.int64)
        idx = rng.choice(len(pool), int(draws[c]), replace=len(pool) < draws[c])
        rows.append(pool[idx])
    rows = np.concatenate(rows)
    return rows[rng.permutation(len(rows))]


class EpochData(Dataset):
    """One epoch's draws; items are rendered images (raster) or encoded rows (strokes).
    ``teacher_channels``: strokes items also carry the same augmented drawing rendered in these
    raster planes, for a distillation teacher's raster models."""

    def __init__(self, corpus, rows, mode: str, seed: int, epoch: int, augment: bool = True,
                 cfg: AugmentConfig | None = None, channels=("ink",), teacher_channels=(), size: int = BITMAP_SIZE):
        self.c, self.rows, self.mode, self.seed, self.epoch = corpus, rows, mode, seed, epoch
        self.augment, self.cfg, self.channels = augment, cfg or AugmentConfig(), tuple(channels)
        self.size = size
        self.teacher_channels = tuple(teacher_channels)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        kind, idx = int(self.rows[i, 0]), int(self.rows[i, 1])
        rng = np.random.default_rng((self.seed, self.epoch, i))
        if kind == 1:
            img = self.c.bitmap_train[idx].reshape(1, 28, 28)
            return torch.from_numpy(bitmap_channels(img, self.channels)), int(self.c.bitmap_train_labels[idx]), 1
        variants = self.c.train_variants[idx]
        strokes = variants[int(rng.integers(len(variants)))]
        if self.augment:
            strokes = augment_strokes(strokes, rng, self.cfg)
        lab = int(self.c.train_labels[idx])
        if self.mode == "raster":
            return torch.from_numpy(raster.render_channels(strokes, self.size, self.channels)), lab, 0
        rows = torch.from_numpy(sequence.encode_rows(strokes, MAX_LENGTH, NORMALIZATION))
        if self.teacher_channels:
            return rows, lab, torch.from_numpy(raster.render_channels(strokes, BITMAP_SIZE, self.teacher_channels))
        return rows, lab, None


def bitmap_channels(images: np.ndarray, channels) -> np.ndarray:
    """Google bitmaps ``[..., 1, H, W]`` as training feeds them to a model with these raster
    channels: the bitmap in every ``ink`` plane, an empty ``order`` plane (a bitmap has no stroke
    order). A drawing never has an empty order plane, so such a model learns ink from bitmaps
    without learning to tell bitmaps from drawings; at run time it takes no bitmaps."""
    planes = [images if c == "ink" else np.zeros_like(images) for c in channels]
    return np.concatenate(planes, axis=-3)


def collate_raster(batch):
    imgs = torch.stack([b[0] for b in batch]).float().div_(255.0)
    return imgs, torch.tensor([b[1] for b in batch]), torch.tensor([b[2] for b in batch], dtype=torch.bool)


def pad_rows(seqs):
    lengths = torch.tensor([s.shape[0] for s in seqs])
    x = torch.zeros(len(seqs), int(lengths.max()), 3)
    for k, s in enumerate(seqs):
        x[k, :s.shape[0]] = torch.as_tensor(s)
    return x, lengths


def collate_strokes(batch):
    """-> padded rows, lengths, labels and the teacher's raster planes (pixel/255) or None."""
    x, lengths = pad_rows([b[0] for b in batch])
    images = None if batch[0][2] is None else torch.stack([b[2] for b in batch]).float().div_(255.0)
    return x, lengths, torch.tensor([b[1] for b in batch]), images


# ------------------------------------------------------------------ evaluation inputs
def raster_inputs(drawings, channels=("ink",), size: int = BITMAP_SIZE) -> torch.Tensor:
    """Simplified drawings -> [N, channels, size, size] float (pixel/255)."""
    return torch.from_numpy(raster.render_batch(drawings, size, channels)).float().div_(255.0)


def bitmap_inputs(bitmaps: np.ndarray, channels=("ink",)) -> torch.Tensor:
    """Google bitmaps -> [N, channels, 28, 28] float (pixel/255)."""
    images = bitmap_channels(np.asarray(bitmaps).reshape(-1, 1, 28, 28), channels)
    return torch.from_numpy(images).float().div_(255.0)


def sequence_inputs(drawings) -> list[np.ndarray]:
    return [sequence.encode_rows(d, MAX_LENGTH, NORMALIZATION) for d in drawings]


@torch.no_grad()
def predict_raster(model, x: torch.Tensor, batch: int = 1024) -> torch.Tensor:
    model.eval()
    return torch.cat([torch.log_softmax(model(x[i:i + batch])[0], 1) for i in range(0, len(x), batch)])


@torch.no_grad()
def predict_strokes(model, seqs, batch: int = 256) -> torch.Tensor:
    model.eval()
    order = np.argsort([len(s) for s in seqs])
    out = torch.zeros(len(seqs), model.num_classes)
    for i in range(0, len(seqs), batch):
        idx = order[i:i + batch]
        x, lengths = pad_rows([seqs[j] for j in idx])
        out[torch.as_tensor(idx)] = torch.log_softmax(model(x, lengths)[0], 1)
    return out


def topk(logp: torch.Tensor, labels, ks=(1, 3, 5)) -> dict:
    labels = torch.as_tensor(labels)
    if len(labels) == 0:
        return {f"top{k}": float("nan") for k in ks}
    top = logp.topk(max(ks), dim=1).indices
    hit = top == labels[:, None]
    return {f"top{k}": float(hit[:, :k].any(1).float().mean()) for k in ks}


def class_balanced_topk(logp: torch.Tensor, labels, ks=(1, 3, 5)) -> dict:
    """Top-k accuracy with every class present counting once (the mean of the per-class
    accuracies), so that a few classes with many drawings cannot outweigh the rest."""
    labels = torch.as_tensor(labels)
    if len(labels) == 0:
        return {f"top{k}": float("nan") for k in ks}
    hit = logp.topk(max(ks), dim=1).indices == labels[:, None]
    counts = torch.bincount(labels).float()
    present = counts > 0
    return {f"top{k}": float((torch.bincount(labels, weights=hit[:, :k].any(1).float())[present]
                              / counts[present]).mean()) for k in ks}
