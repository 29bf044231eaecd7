"""(Δx, Δy, pen-up) sequences: a port of Swift's ``StrokeSequenceEncoder``.

Same semantics as ``Sources/SketchwisePreprocess/StrokeSequence.swift``:

* points are concatenated stroke by stroke; each point carries pen-up = 1 when it is the
  last point of its stroke;
* coordinates are normalised with the bounding box of all points: ``(p - min) / scale``
  where, for ``"perAxis"``, scale is the box width (x) and height (y) (1 when that side is
  0), and for ``"uniform"`` both use the longer side (1 when the box is a single point);
* each row is the difference to the previous point (the normalised values are subtracted
  in double precision, then rounded to float32 as Swift's ``Float(x - last.x)``), the very
  first point of the drawing is dropped (it has no predecessor);
* at most ``length`` rows are kept.

``encode`` returns the zero-padded ``(length, 3)`` float32 array and the number of valid
rows, exactly like ``StrokeSequence`` (``values`` / ``validRows``). ``encode_rows`` returns
only the valid rows, as the runtime feeds them: ``(T, 3)``, and a drawing without rows
becomes the single row ``(0, 0, 1)`` (docs/model-format.md, "kind": "strokes").

Strokes are Google-format: each stroke a sequence ``(xs, ys[, ts])``; extra rows ignored.
Empty strokes contribute nothing (they have no points).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["encode", "encode_rows", "decode", "NORMALIZATIONS"]

NORMALIZATIONS = ("perAxis", "uniform")


def _points(strokes: Sequence) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    for s in strokes:
        xs = np.asarray(s[0], dtype=np.float64).ravel()
        ys = np.asarray(s[1], dtype=np.float64).ravel()
        if xs.shape != ys.shape:
            raise ValueError("stroke x and y rows differ in length")
        out.append((xs, ys))
    return out


def encode(strokes: Sequence, length: int = 75, normalization: str = "perAxis") -> tuple[np.ndarray, int]:
    """Encode like ``StrokeSequenceEncoder(length:normalization:).encode`` -> (values, validRows)."""
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {normalization!r}")
    values = np.zeros((max(length, 0), 3), dtype=np.float32)
    pts = _points(strokes)
    nonempty = [(x, y) for x, y in pts if x.size]
    if not nonempty or length <= 0:
        return values, 0
    min_x = min(float(x.min()) for x, _ in nonempty)
    max_x = max(float(x.max()) for x, _ in nonempty)
    min_y = min(float(y.min()) for _, y in nonempty)
    max_y = max(float(y.max()) for _, y in nonempty)
    w, h = max_x - min_x, max_y - min_y
    if normalization == "perAxis":
        sx = w if w > 0 else 1.0
        sy = h if h > 0 else 1.0
    else:
        side = max(w, h)
        sx = sy = side if side > 0 else 1.0
    xs = np.concatenate([x for x, _ in nonempty])
    ys = np.concatenate([y for _, y in nonempty])
    pen = np.concatenate([np.eye(1, x.size, x.size - 1, dtype=np.float32).ravel() for x, _ in nonempty])
    nx = (xs - min_x) / sx
    ny = (ys - min_y) / sy
    n = min(xs.size - 1, length)
    if n <= 0:
        return values, 0
    values[:n, 0] = (nx[1:n + 1] - nx[:n]).astype(np.float32)
    values[:n, 1] = (ny[1:n + 1] - ny[:n]).astype(np.float32)
    values[:n, 2] = pen[1:n + 1]
    return values, n


def encode_rows(strokes: Sequence, length: int = 128, normalization: str = "uniform") -> np.ndarray:
    """The valid rows only, ``(T, 3)`` float32, T >= 1 (no rows -> ``[(0, 0, 1)]``)."""
    values, n = encode(strokes, length, normalization)
    if n == 0:
        return np.array([[0.0, 0.0, 1.0]], dtype=np.float32)
    return values[:n].copy()


def decode(values: np.ndarray, valid_rows: int | None = None) -> list[list[list[float]]]:
    """Inverse of ``encode`` up to normalisation, the dropped first point and cutting
    (as ``StrokeSequenceEncoder.decode``): strokes ``[[xs], [ys]]`` starting at the origin."""
    values = np.asarray(values, dtype=np.float64).reshape(-1, 3)
    n = values.shape[0] if valid_rows is None else valid_rows
    strokes: list[list[list[float]]] = []
    cur = [(0.0, 0.0)]
    x = y = 0.0
    for r in range(n):
        x += values[r, 0]
        y += values[r, 1]
        cur.append((x, y))
        if values[r, 2] > 0.5:
            strokes.append([[p[0] for p in cur], [p[1] for p in cur]])
            cur = []
    if cur:
        strokes.append([[p[0] for p in cur], [p[1] for p in cur]])
    return strokes
