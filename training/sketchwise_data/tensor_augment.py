"""Augmentation of padded drawing batches (``tensor_raster``'s ``points``/``strokes``) in stroke
space, fresh for every step, as tensor operations on the training device.

Every random number comes from one ``torch.Generator`` on the CPU (a few per drawing), so a run
resumed from its checkpointed generator state draws exactly what an uninterrupted run draws, on
any device. Transforms act on points, so strokes stay joined: a mirror, a rotation, anisotropic
scale and shear, and a smooth sinusoidal warp (a function of position). Strokes are dropped
(never the first), drawings cut to their first strokes (partial drawings, as while drawing), and
some drawings get the first half of another's strokes beside them (stroke-level mixing: those
are labelled by the teacher alone). The line width varies per drawing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .tensor_raster import fit_to_frame


@dataclass(frozen=True)
class TensorAugment:
    rotation_deg: float = 15.0
    scale: float = 0.15
    shear: float = 0.15
    p_mirror: float = 0.5
    warp_amplitude: float = 6.0  # frame units (of 256), at most
    p_drop_stroke: float = 0.10
    p_partial: float = 0.15
    p_mix: float = 0.20
    line_width: float = 0.15


def _uniform(gen, n, low, high):
    return torch.rand(n, generator=gen) * (high - low) + low


def augment(points: torch.Tensor, strokes: torch.Tensor, gen: torch.Generator, cfg: TensorAugment = TensorAugment()):
    """-> ``(points, strokes, mixed [B] bool, cut [B] bool, line_scale [B])``, all on the batch's
    device; ``cut``: the drawing lost its last strokes (a partial drawing)."""
    device, n = points.device, points.shape[0]
    pts = fit_to_frame(points, strokes)
    strokes = strokes.clone()
    count = strokes.amax(1) + 1  # strokes per drawing
    kmax = int(count.max().item()) if n else 1

    # partial drawings: only the first k strokes (k >= 1)
    partial = (torch.rand(n, generator=gen) < cfg.p_partial).to(device)
    keep_upto = (torch.rand(n, generator=gen).to(device) * count).floor().long() + 1
    cut = partial[:, None] & (strokes >= keep_upto[:, None])
    # dropped strokes, never the first
    drop = (torch.rand(n, kmax, generator=gen) < cfg.p_drop_stroke).to(device)
    drop[:, 0] = False
    dropped = torch.gather(drop, 1, strokes.clamp(0, kmax - 1)) & (strokes >= 0)
    strokes = torch.where(cut | dropped, torch.full_like(strokes, -1), strokes)

    # stroke-level mixing: the first half of the next drawing's strokes, shifted, appended
    mixed = (torch.rand(n, generator=gen) < cfg.p_mix).to(device)
    shift = (torch.rand(n, 2, generator=gen) * 256.0 - 128.0).to(device)
    if n > 1 and bool(mixed.any()):
        other_pts, other_strokes = torch.roll(pts, 1, 0), torch.roll(strokes, 1, 0)
        other_count = torch.roll(count, 1, 0)
        half = (other_count + 1) // 2
        take = mixed[:, None] & (other_strokes >= 0) & (other_strokes < half[:, None])
        moved = other_pts + shift[:, None, :]
        base = strokes.amax(1, keepdim=True) + 1
        pts = torch.cat([pts, moved], 1)
        strokes = torch.cat([strokes, torch.where(take, other_strokes + base, torch.full_like(other_strokes, -1))], 1)
    else:
        mixed = torch.zeros_like(mixed)

    # affine about the frame's centre: mirror, rotation, anisotropic scale, shear
    centre = 128.0
    angle = _uniform(gen, n, -cfg.rotation_deg, cfg.rotation_deg) * (math.pi / 180.0)
    sx = _uniform(gen, n, 1 - cfg.scale, 1 + cfg.scale)
    sy = _uniform(gen, n, 1 - cfg.scale, 1 + cfg.scale)
    shear = _uniform(gen, n, -cfg.shear, cfg.shear)
    mirror = torch.where(torch.rand(n, generator=gen) < cfg.p_mirror, -1.0, 1.0)
    cos, sin = torch.cos(angle), torch.sin(angle)
    # M = R(angle) @ Shear @ diag(mirror * sx, sy)
    m00 = cos * mirror * sx
    m01 = (cos * shear - sin) * sy
    m10 = sin * mirror * sx
    m11 = (sin * shear + cos) * sy
    mat = torch.stack([torch.stack([m00, m01], -1), torch.stack([m10, m11], -1)], -2).to(device)
    pts = torch.einsum("bij,bpj->bpi", mat, pts - centre) + centre

    # smooth warp: each coordinate moved by a sine of the other (joined strokes stay joined)
    amp = (torch.rand(n, 2, generator=gen) * cfg.warp_amplitude).to(device)
    freq = _uniform(gen, (n, 2), 0.5, 2.0).to(device) * (2 * math.pi / 256.0)
    phase = (torch.rand(n, 2, generator=gen) * 2 * math.pi).to(device)
    x, y = pts[..., 0], pts[..., 1]
    pts = torch.stack([x + amp[:, :1] * torch.sin(freq[:, :1] * y + phase[:, :1]),
                       y + amp[:, 1:] * torch.sin(freq[:, 1:] * x + phase[:, 1:])], -1)

    line_scale = _uniform(gen, n, 1 - cfg.line_width, 1 + cfg.line_width).to(device)
    return pts, strokes, mixed, cut.any(1), line_scale


def bitmap_augment(images: torch.Tensor, gen: torch.Generator, rotation_deg: float = 10.0, scale: float = 0.1,
                   translate: float = 0.06, p_mirror: float = 0.5, p_affine: float = 0.75) -> torch.Tensor:
    """Google's bitmaps ``[B, 1, 28, 28]`` (0..1), mirrored exactly (a flip) with ``p_mirror`` and
    under a small random affine with ``p_affine``. The affine resamples bilinearly, which blurs, so
    the rest stay sharp, as the runtime sees them: a student that saw only resampled bitmaps scored
    80 % on sharp training bitmaps and 88 % on resampled ones."""
    n = images.shape[0]
    mirror = (torch.rand(n, generator=gen) < p_mirror).to(images.device)
    images = torch.where(mirror[:, None, None, None], images.flip(3), images)
    warp = (torch.rand(n, generator=gen) < p_affine).to(images.device)
    angle = _uniform(gen, n, -rotation_deg, rotation_deg) * (math.pi / 180.0)
    s = _uniform(gen, n, 1 - scale, 1 + scale)
    shift = _uniform(gen, (n, 2), -translate, translate) * 2
    cos, sin = torch.cos(angle) / s, torch.sin(angle) / s
    theta = torch.stack([torch.stack([cos, -sin, shift[:, 0]], -1),
                         torch.stack([sin, cos, shift[:, 1]], -1)], 1).to(images)
    grid = torch.nn.functional.affine_grid(theta, list(images.shape), align_corners=False)
    warped = torch.nn.functional.grid_sample(images, grid, align_corners=False)
    return torch.where(warp[:, None, None, None], warped, images)
