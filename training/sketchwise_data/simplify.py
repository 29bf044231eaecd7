"""Exact re-implementation of Google's Quick, Draw! "raw" -> "simplified" conversion.

Reproduces Google's published ``simplified`` drawings bit-for-bit on every
raw/simplified pair available to us (6,343 of 6,343 drawings, 32,744 strokes;
see ``training/tools/measure_simplify.py``).  Plain float64 scalar arithmetic
throughout, written so it can be ported line by line to Swift (``Double``).

Algorithm (all arithmetic IEEE-754 binary64, evaluated exactly in the order written):

1. Bounding box over ALL points of ALL strokes:
   min_x, min_y, max_x, max_y (raw values converted to float64).
   extent = max(max_x - min_x, max_y - min_y).
2. Align and scale every point (no rounding here):
       X = ((x - min_x) * 255.0) / extent
       Y = ((y - min_y) * 255.0) / extent
   i.e. multiply by 255 FIRST, then divide by the extent (not ``* (255/extent)``,
   which gives different last bits: 94.75% instead of 100% exact drawings).
   If extent == 0 every point becomes (0.0, 0.0).
3. Resample each stroke independently at 1-unit arc-length spacing:
   * seg_len[i] = sqrt(dx*dx + dy*dy) for segment i (points i -> i+1)
     (NOT math.hypot);
     cum[0] = 0, cum[i+1] = cum[i] + seg_len[i] (running float sum).
   * emit the first point (t = 0) unconditionally; then
     for t = 1.0, 2.0, 3.0, ... (t = k * 1.0) while t < cum[-1] (total length):
     find segment j with cum[j] <= t < cum[j+1] (zero-length segments are
     never selected); f = (t - cum[j]) / seg_len[j]   (divide by the segment's
     own length, NOT by cum[j+1] - cum[j]); emit
         x = x_j * (1.0 - f) + x_{j+1} * f,   y likewise
     (this "weighted" lerp form, NOT x_j + f*(x_{j+1}-x_j)).
   * then ALWAYS append the stroke's last (scaled) point.
   So a single-point or zero-length stroke becomes [p0, p_last] (two
   points), which is why Google has 2-point strokes with identical points.
   Original vertices are not kept (except t = 0 and the final point).
4. Ramer-Douglas-Peucker with epsilon 2.0 on the resampled float points,
   iterative with an explicit stack (order of processing does not matter):
   for a range (s, e) with e - s >= 2, with A = P[s], B = P[e]:
       ex = B.x - A.x; ey = B.y - A.y
       norm = sqrt(fma(ex, ex, ey*ey))   # ex*ex + ey*ey with ONE rounding
       for each i in s+1 .. e-1:
           sx = A.x - P[i].x; sy = A.y - P[i].y
           d = |ex*sy - ey*sx| / norm             (perpendicular distance to the
                                                   infinite line through A, B)
           or, if norm == 0: d = sqrt(sx*sx + sy*sy)
       take the FIRST index with the maximal d (strict '>' while scanning);
       if dmax > 2.0 (strict): keep that index and push (s, idx), (idx, e).
   The fused multiply-add in the norm only matters for exact ties among
   equidistant candidates (2 of 32,744 strokes); a correctly rounded
   ex*ex + ey*ey gives identical results on all data.
   In Swift: ``let norm = (ey * ey).addingProduct(ex, ex).squareRoot()``.
5. Round each kept coordinate to the nearest integer, ties to even
   (Python ``round``; Swift ``.rounded(.toNearestOrEven)`` -- NOT Swift's default
   ``.rounded()``, which rounds halves away from zero: 96.4% exact).  Values stay in
   0...255.  No point de-duplication, no stroke is dropped.
"""
from __future__ import annotations

import math
from fractions import Fraction

EPSILON = 2.0
TARGET = 255.0

try:  # Python >= 3.13
    _fma = math.fma  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover - exercised on Python 3.11
    def _fma(a: float, b: float, c: float) -> float:
        """a*b + c with a single rounding (exact rational arithmetic)."""
        return float(Fraction(a) * Fraction(b) + Fraction(c))


def normalize_drawing(drawing):
    """Step 1+2: raw strokes [[xs],[ys],(ts)] -> list of strokes of (X, Y) float tuples."""
    min_x = min_y = math.inf
    max_x = max_y = -math.inf
    for stroke in drawing:
        for v in stroke[0]:
            v = float(v)
            if v < min_x:
                min_x = v
            if v > max_x:
                max_x = v
        for v in stroke[1]:
            v = float(v)
            if v < min_y:
                min_y = v
            if v > max_y:
                max_y = v
    out = []
    if min_x == math.inf:  # no points at all
        return [[] for _ in drawing]
    extent = max(max_x - min_x, max_y - min_y)
    for stroke in drawing:
        pts = []
        for x, y in zip(stroke[0], stroke[1]):
            if extent == 0.0:
                pts.append((0.0, 0.0))
            else:
                pts.append((((float(x) - min_x) * TARGET) / extent,
                            ((float(y) - min_y) * TARGET) / extent))
        out.append(pts)
    return out


def resample_stroke(pts, spacing: float = 1.0):
    """Step 3: arc-length resampling at `spacing`, then the last point appended."""
    n = len(pts)
    if n == 0:
        return []
    seg = []
    cum = [0.0]
    for i in range(n - 1):
        dx = pts[i + 1][0] - pts[i][0]
        dy = pts[i + 1][1] - pts[i][1]
        d = math.sqrt(dx * dx + dy * dy)
        seg.append(d)
        cum.append(cum[i] + d)
    total = cum[n - 1]
    out = [pts[0]]  # t = 0 is always emitted, even for zero-length strokes
    j = 0
    k = 1
    t = spacing
    while t < total:
        while cum[j + 1] <= t:  # terminates: t < total == cum[n-1]
            j += 1
        f = (t - cum[j]) / seg[j]
        x0, y0 = pts[j]
        x1, y1 = pts[j + 1]
        out.append((x0 * (1.0 - f) + x1 * f, y0 * (1.0 - f) + y1 * f))
        k += 1
        t = k * spacing
    out.append(pts[n - 1])
    return out


def rdp(pts, epsilon: float = EPSILON):
    """Step 4: iterative Ramer-Douglas-Peucker (explicit stack, no recursion)."""
    n = len(pts)
    if n < 3:
        return list(pts)
    keep = [False] * n
    keep[0] = True
    keep[n - 1] = True
    stack = [(0, n - 1)]
    while stack:
        s, e = stack.pop()
        if e - s < 2:
            continue
        ax, ay = pts[s]
        bx, by = pts[e]
        ex = bx - ax
        ey = by - ay
        norm = math.sqrt(_fma(ex, ex, ey * ey))
        dmax = -1.0
        idx = -1
        for i in range(s + 1, e):
            px, py = pts[i]
            sx = ax - px
            sy = ay - py
            if norm == 0.0:
                d = math.sqrt(sx * sx + sy * sy)
            else:
                d = abs(ex * sy - ey * sx) / norm
            if d > dmax:
                dmax = d
                idx = i
        if dmax > epsilon:
            keep[idx] = True
            stack.append((s, idx))
            stack.append((idx, e))
    return [p for p, kp in zip(pts, keep) if kp]


def simplify_drawing(drawing):
    """Raw Quick, Draw! drawing -> Google "simplified" drawing.

    `drawing`: list of strokes [[x...], [y...]] or [[x...], [y...], [t...]] (t ignored).
    Returns list of strokes [[x...], [y...]] with ints in 0..255, one per input stroke.
    """
    result = []
    for pts in normalize_drawing(drawing):
        kept = rdp(resample_stroke(pts))
        result.append([[int(round(x)) for x, _ in kept], [int(round(y)) for _, y in kept]])
    return result
