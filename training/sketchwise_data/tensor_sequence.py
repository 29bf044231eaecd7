"""The stroke model's input (``sequence.encode_rows``, ``"uniform"`` normalisation) for padded
drawing batches (``tensor_raster``'s ``points``/``strokes``), as tensor operations: the rows of
every drawing at once, on the training device.

Rows are the differences between consecutive points of the drawing (strokes concatenated, the
first point dropped) after scaling by the longer side of the bounding box, each with pen-up 1
where the point ends its stroke; at most ``length`` rows; a drawing without rows gets the single
row ``(0, 0, 1)``.
"""
from __future__ import annotations

import torch

from .tensor_raster import bounds, compact


def encode(points: torch.Tensor, strokes: torch.Tensor, length: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    """-> (rows ``[B, T, 3]`` zero-padded, T <= ``length``; lengths ``[B]`` >= 1)."""
    points, strokes = compact(points, strokes)
    valid = strokes >= 0
    count = valid.sum(1)
    low, high = bounds(points, strokes)
    side = (high - low).amax(2, keepdim=True)
    side = torch.where(side > 0, side, torch.ones_like(side))
    scaled = (points.double() - low.double()) / side.double()
    ends = torch.ones_like(valid)
    ends[:, :-1] = strokes[:, 1:] != strokes[:, :-1]  # the last point of a stroke (padding follows the last)
    deltas = (scaled[:, 1:] - scaled[:, :-1]).float()
    rows = torch.cat([deltas, ends[:, 1:, None].to(deltas.dtype)], 2)
    lengths = (count - 1).clamp(0, length)
    steps = min(length, rows.shape[1])
    rows = rows[:, :max(1, steps)] if steps else rows.new_zeros((rows.shape[0], 1, 3))
    keep = torch.arange(rows.shape[1], device=rows.device)[None, :] < lengths[:, None]
    rows = rows * keep[..., None]
    empty = lengths == 0
    rows[empty, 0] = torch.tensor([0.0, 0.0, 1.0], device=rows.device, dtype=rows.dtype)
    return rows, lengths.clamp_min(1)
