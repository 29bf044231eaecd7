"""Stroke-space augmentation (applied to Google-simplified drawings, before rendering or
sequence encoding, re-drawn every epoch) and image-space augmentation for bitmaps.

All stroke functions take and return Google-format strokes ``[[xs, ys], ...]`` (float64
arrays) and a ``numpy.random.Generator``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["AugmentConfig", "augment_strokes", "mirror", "partial", "drop_strokes", "affine", "jitter"]


@dataclass
class AugmentConfig:
    rotation_deg: float = 15.0      # uniform +-
    shear: float = 0.2              # uniform +- (x += shear * y)
    aspect_log: float = 0.25        # x scale exp(U(+-)), y scale exp(-...)
    scale_log: float = 0.15         # overall scale (matters for stroke sequences' jitter only)
    jitter: float = 1.5             # gaussian sigma per point, 0..255 units
    drop_prob: float = 0.08         # per-stroke drop probability (>= 1 stroke kept)
    partial_prob: float = 0.2       # probability of keeping only the first k strokes
    p_affine: float = 0.9
    p_jitter: float = 0.5
    p_mirror: float = 0.5           # left-right mirror image (sketch classes are mirror-symmetric)


def mirror(strokes):
    """The left-right mirror image in the 0..255 frame (x -> 255 - x)."""
    return [[255.0 - np.asarray(st[0], np.float64), np.asarray(st[1], np.float64)] for st in strokes]


def partial(strokes, rng: np.random.Generator):
    """The first k strokes, k uniform in 1..n-1 (unchanged when n < 2)."""
    n = len(strokes)
    if n < 2:
        return strokes
    k = int(rng.integers(1, n))
    return strokes[:k]


def drop_strokes(strokes, rng: np.random.Generator, p: float):
    if len(strokes) < 2 or p <= 0:
        return strokes
    keep = rng.random(len(strokes)) >= p
    if not keep.any():
        keep[rng.integers(len(strokes))] = True
    return [s for s, k in zip(strokes, keep) if k]


def affine(strokes, rng: np.random.Generator, cfg: AugmentConfig):
    a = math.radians(rng.uniform(-cfg.rotation_deg, cfg.rotation_deg))
    sh = rng.uniform(-cfg.shear, cfg.shear)
    asp = math.exp(rng.uniform(-cfg.aspect_log, cfg.aspect_log))
    sc = math.exp(rng.uniform(-cfg.scale_log, cfg.scale_log))
    c, s = math.cos(a), math.sin(a)
    # M = R @ Shear @ diag(asp, 1/asp) * sc
    m00, m01 = asp * sc, sh * sc / asp
    m10, m11 = 0.0, sc / asp
    r00, r01 = c * m00 - s * m10, c * m01 - s * m11
    r10, r11 = s * m00 + c * m10, s * m01 + c * m11
    out = []
    for st in strokes:
        x, y = st[0] - 127.5, st[1] - 127.5
        out.append([r00 * x + r01 * y + 127.5, r10 * x + r11 * y + 127.5])
    return out


def jitter(strokes, rng: np.random.Generator, sigma: float):
    return [[st[0] + rng.normal(0, sigma, st[0].shape), st[1] + rng.normal(0, sigma, st[1].shape)]
            for st in strokes]


def augment_strokes(strokes, rng: np.random.Generator, cfg: AugmentConfig | None = None):
    cfg = cfg or AugmentConfig()
    strokes = [s for s in strokes if len(s[0])]
    if not strokes:
        return strokes
    if rng.random() < cfg.p_mirror:
        strokes = mirror(strokes)
    if rng.random() < cfg.partial_prob:
        strokes = partial(strokes, rng)
    strokes = drop_strokes(strokes, rng, cfg.drop_prob)
    if rng.random() < cfg.p_affine:
        strokes = affine(strokes, rng, cfg)
    if rng.random() < cfg.p_jitter:
        strokes = jitter(strokes, rng, cfg.jitter)
    return strokes


def bitmap_affine(images, generator=None, rotation_deg=10.0, scale=0.1, shear=0.15, translate=0.06):
    """Random affine warp of a float tensor batch ``[N, 1, 28, 28]`` (torch, bilinear)."""
    import torch
    import torch.nn.functional as F
    n = images.shape[0]
    dev = images.device

    def u(lo, hi):
        return torch.rand(n, generator=generator, device=dev) * (hi - lo) + lo

    a = u(-rotation_deg, rotation_deg) * math.pi / 180
    sc = torch.exp(u(-scale, scale))
    asp = torch.exp(u(-scale, scale))
    sh = u(-shear, shear)
    cos, sin = torch.cos(a), torch.sin(a)
    m00, m01, m11 = sc * asp, sh * sc, sc / asp
    theta = torch.zeros(n, 2, 3, device=dev)
    theta[:, 0, 0] = cos * m00
    theta[:, 0, 1] = cos * m01 - sin * m11
    theta[:, 1, 0] = sin * m00
    theta[:, 1, 1] = sin * m01 + cos * m11
    theta[:, 0, 2] = u(-translate, translate)
    theta[:, 1, 2] = u(-translate, translate)
    grid = F.affine_grid(theta, images.shape, align_corners=False)
    return F.grid_sample(images, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
