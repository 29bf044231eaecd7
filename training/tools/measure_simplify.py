"""Measures training/sketchwise_data/simplify.py against Google's own simplified drawings.

For every drawing present in both quickdraw/raw and quickdraw/simplified (same key_id) it runs
simplify_drawing on the raw strokes and compares with Google's version:

* share of drawings reproduced exactly (every point of every stroke equal), and of strokes;
* per drawing, mean symmetric point-to-polyline distance (each point of A to the nearest segment
  of any stroke of B and vice versa, averaged over all points of both): median, p95, mean;
* point-count ratio ours / Google's per drawing: mean;
* failure modes of the non-exact drawings.

--variant NAME re-runs one of the rejected hypotheses (see VARIANTS) for comparison.

Run from the repository root:
    python3 training/tools/measure_simplify.py [--data ../shared/data/quickdraw] [--variant final]
"""
import argparse
import json
import math
from collections import Counter
from pathlib import Path

from sketchwise_data import simplify as S

DEFAULT_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "quickdraw"


# ---------------------------------------------------------------- rejected hypotheses (for comparison)
def _variant(name):
    """Returns simplify_drawing(drawing) for a named variant; 'final' is simplify.py unchanged."""
    if name == "final":
        return S.simplify_drawing
    scale_recip = name == "scale_recip"          # X = (x - min) * (255 / extent)
    lerp_add = name == "lerp_add"                # x0 + f * (x1 - x0)
    cum_den = name == "cum_den"                  # f = (t - cum[j]) / (cum[j+1] - cum[j])
    hypot_len = name == "hypot_len"              # segment length with math.hypot
    plain_norm = name == "plain_norm"            # norm = sqrt(ex*ex + ey*ey) (two roundings)
    abs_line = name == "abs_line"                # |dy*px - dx*py + bx*ay - by*ax| / norm
    seg_dist = name == "seg_dist"                # distance to the segment, not the line
    no_resample = name == "no_resample"
    naive = name == "naive"                      # textbook: the above 'plain' choices together
    if name not in ("scale_recip", "lerp_add", "cum_den", "hypot_len", "plain_norm", "abs_line",
                    "seg_dist", "no_resample", "naive"):
        raise SystemExit(f"unknown variant {name}")
    if naive:
        scale_recip = lerp_add = cum_den = hypot_len = plain_norm = abs_line = True

    def normalize(drawing):
        xs = [float(v) for s in drawing for v in s[0]]
        ys = [float(v) for s in drawing for v in s[1]]
        mx, my = min(xs), min(ys)
        ext = max(max(xs) - mx, max(ys) - my)
        out = []
        for s in drawing:
            if ext == 0:
                out.append([(0.0, 0.0) for _ in s[0]])
            elif scale_recip:
                k = 255.0 / ext
                out.append([((float(x) - mx) * k, (float(y) - my) * k) for x, y in zip(s[0], s[1])])
            else:
                out.append([((float(x) - mx) * 255.0 / ext, (float(y) - my) * 255.0 / ext)
                            for x, y in zip(s[0], s[1])])
        return out

    def resample(pts):
        n = len(pts)
        seg, cum = [], [0.0]
        for i in range(n - 1):
            dx, dy = pts[i + 1][0] - pts[i][0], pts[i + 1][1] - pts[i][1]
            d = math.hypot(dx, dy) if hypot_len else math.sqrt(dx * dx + dy * dy)
            seg.append(d)
            cum.append(cum[i] + d)
        out, j, k, t = [pts[0]], 0, 1, 1.0
        while t < cum[-1]:
            while cum[j + 1] <= t:
                j += 1
            f = (t - cum[j]) / ((cum[j + 1] - cum[j]) if cum_den else seg[j])
            (x0, y0), (x1, y1) = pts[j], pts[j + 1]
            if lerp_add:
                out.append((x0 + f * (x1 - x0), y0 + f * (y1 - y0)))
            else:
                out.append((x0 * (1.0 - f) + x1 * f, y0 * (1.0 - f) + y1 * f))
            k += 1
            t = k * 1.0
        out.append(pts[-1])
        return out

    def norm_of(a, b):
        ex, ey = b[0] - a[0], b[1] - a[1]
        return math.sqrt(ex * ex + ey * ey) if plain_norm else math.sqrt(S._fma(ex, ex, ey * ey))

    def dist(p, a, b, norm):
        ex, ey = b[0] - a[0], b[1] - a[1]
        sx, sy = a[0] - p[0], a[1] - p[1]
        if seg_dist:
            l2 = ex * ex + ey * ey
            if l2 == 0:
                return math.sqrt(sx * sx + sy * sy)
            t = max(0.0, min(1.0, -(sx * ex + sy * ey) / l2))
            return math.hypot(p[0] - a[0] - t * ex, p[1] - a[1] - t * ey)
        if norm == 0:
            return math.sqrt(sx * sx + sy * sy)
        if abs_line:
            return abs(ey * p[0] - ex * p[1] + b[0] * a[1] - b[1] * a[0]) / norm
        return abs(ex * sy - ey * sx) / norm

    def rdp(pts):
        n = len(pts)
        if n < 3:
            return list(pts)
        keep = [False] * n
        keep[0] = keep[-1] = True
        stack = [(0, n - 1)]
        while stack:
            s, e = stack.pop()
            dmax, idx = -1.0, -1
            norm = norm_of(pts[s], pts[e])
            for i in range(s + 1, e):
                d = dist(pts[i], pts[s], pts[e], norm)
                if d > dmax:
                    dmax, idx = d, i
            if idx >= 0 and dmax > 2.0:
                keep[idx] = True
                stack += [(s, idx), (idx, e)]
        return [p for p, kp in zip(pts, keep) if kp]

    def simplify_drawing(drawing):
        res = []
        for pts in normalize(drawing):
            kept = rdp(pts if no_resample else resample(pts))
            if no_resample and len(kept) == 1:
                kept = kept * 2
            res.append([[int(round(x)) for x, _ in kept], [int(round(y)) for _, y in kept]])
        return res
    return simplify_drawing


# ---------------------------------------------------------------- metrics
def _pt_seg(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    l2 = dx * dx + dy * dy
    t = 0.0 if l2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / l2))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def _to_polyline_set(points_a, strokes_b):
    total = 0.0
    for px, py in points_a:
        best = math.inf
        for s in strokes_b:
            if len(s) == 1:
                best = min(best, math.hypot(px - s[0][0], py - s[0][1]))
            for (ax, ay), (bx, by) in zip(s, s[1:]):
                best = min(best, _pt_seg(px, py, ax, ay, bx, by))
        total += best
    return total


def symmetric_distance(a, b):
    """Mean over all points of A and of B of the distance to the other drawing's polylines."""
    pa = [p for s in a for p in s]
    pb = [p for s in b for p in s]
    if not pa or not pb:
        return 0.0 if not pa and not pb else math.inf
    return (_to_polyline_set(pa, b) + _to_polyline_set(pb, a)) / (len(pa) + len(pb))


def load(path):
    out = {}
    for f in sorted(Path(path).glob("*.ndjson")):
        with open(f) as fh:
            for line in fh:
                r = json.loads(line)
                out[r["key_id"]] = r["drawing"]
    return out


def failure_mode(ours, google):
    if len(ours) != len(google):
        return "stroke count differs"
    modes = []
    for o, g in zip(ours, google):
        if o == g:
            continue
        if len(o) != len(g):
            modes.append("point count differs")
        elif max(abs(a - c) + abs(b - d) for (a, b), (c, d) in zip(o, g)) <= 1:
            modes.append("same points, off by 1 after rounding")
        else:
            modes.append("different RDP split point, same count")
    return ", ".join(sorted(set(modes)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="quickdraw folder with raw/ and simplified/")
    ap.add_argument("--variant", default="final", help="final (default) or a rejected hypothesis: "
                    "scale_recip lerp_add cum_den hypot_len plain_norm abs_line seg_dist no_resample naive")
    ap.add_argument("--show", type=int, default=5, help="print this many failing strokes")
    args = ap.parse_args()
    fn = _variant(args.variant)

    raw = load(Path(args.data) / "raw")
    simp = load(Path(args.data) / "simplified")
    keys = [k for k in simp if k in raw]
    exact_d = exact_s = n_strokes = 0
    dists, ratios, modes, shown = [], [], Counter(), 0
    for k in keys:
        ours = [list(zip(s[0], s[1])) for s in fn(raw[k])]
        goog = [list(zip(s[0], s[1])) for s in simp[k]]
        n_strokes += len(goog)
        exact_s += sum(1 for o, g in zip(ours, goog) if o == g)
        n_o, n_g = sum(map(len, ours)), sum(map(len, goog))
        ratios.append(n_o / n_g if n_g else 1.0)
        if ours == goog:
            exact_d += 1
            dists.append(0.0)
            continue
        dists.append(symmetric_distance(ours, goog))
        modes[failure_mode(ours, goog)] += 1
        for i, (o, g) in enumerate(zip(ours, goog)):
            if o != g and shown < args.show:
                shown += 1
                print(f"  key {k} stroke {i}:\n    google {g}\n    ours   {o}")
    n = len(keys)
    ds = sorted(dists)
    pct = lambda q: ds[min(n - 1, int(math.ceil(q * n)) - 1)]  # noqa: E731
    print(f"variant: {args.variant}")
    print(f"pairs (drawings in raw and simplified): {n}, strokes: {n_strokes}")
    print(f"exact drawings: {exact_d}/{n} = {100.0 * exact_d / n:.2f}%")
    print(f"exact strokes:  {exact_s}/{n_strokes} = {100.0 * exact_s / n_strokes:.3f}%")
    print(f"symmetric point-to-polyline distance per drawing (px of 0-255): "
          f"median {pct(0.5):.4f}, p95 {pct(0.95):.4f}, mean {sum(ds) / n:.4f}, max {ds[-1]:.4f}")
    nz = [d for d in ds if d > 0]
    if nz:
        print(f"  over non-exact drawings only: median {nz[len(nz) // 2]:.4f}, mean {sum(nz) / len(nz):.4f}")
    print(f"point-count ratio ours/google per drawing: mean {sum(ratios) / n:.5f}, "
          f"min {min(ratios):.3f}, max {max(ratios):.3f}")
    print("failure modes of non-exact drawings:" + ("" if modes else " none"))
    for m, c in modes.most_common():
        print(f"  {c:5d}  {m}")


if __name__ == "__main__":
    main()
