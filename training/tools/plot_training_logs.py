#!/usr/bin/env python3
"""Learning curves of ``train_on_device.py`` runs as one PNG: validation top-1 (raw and simplified
drawings, Google's bitmaps) against millions of samples seen, one colour per run.

    python3 training/tools/plot_training_logs.py OUT.png RUN.log [RUN.log ...] [--batch 1024]
"""
from __future__ import annotations

import argparse
import ast
import math
import re
from pathlib import Path

from PIL import Image, ImageDraw

LINE = re.compile(r"step (\d+)/\d+ .*validation top-1 (\{.*\})")
COLOURS = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189), (255, 127, 14)]
PANELS = ("raw", "simplified", "bitmaps-val")


def read_curve(log: Path, batch: int) -> list[tuple[float, dict]]:
    """(millions of samples, {part: top-1}) for every validation line of a log."""
    points = []
    for line in log.read_text().splitlines():
        m = LINE.search(line)
        if m:
            points.append((int(m.group(1)) * batch / 1e6, ast.literal_eval(m.group(2))))
    return points


def plot(curves: dict[str, list], out: Path, width: int = 1200, height: int = 420):
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    max_x = max((p[0] for c in curves.values() for p in c), default=1.0)
    values = [r[part] for c in curves.values() for _, r in c for part in PANELS if part in r]
    lo = min(40.0, 10.0 * math.floor(min(values, default=40.0) / 10))  # whole tens around every point
    hi = max(80.0, 10.0 * math.ceil(max(values, default=80.0) / 10))
    panel_w, top, bottom = width // len(PANELS), 40, height - 60
    for k, part in enumerate(PANELS):
        x0, x1 = k * panel_w + 50, (k + 1) * panel_w - 15
        draw.rectangle([x0, top, x1, bottom], outline="black")
        draw.text((x0, 12), f"validation top-1, {part}", fill="black")
        for v in range(int(lo), int(hi) + 1, 10):
            y = bottom - (v - lo) / (hi - lo) * (bottom - top)
            draw.line([x0, y, x1, y], fill=(225, 225, 225))
            draw.text((x0 - 28, y - 6), f"{v}%", fill="black")
        draw.text((x0, bottom + 8), f"0 ... {max_x:.1f} M samples", fill="black")
        for (name, curve), colour in zip(curves.items(), COLOURS):
            xy = [(x0 + s / max_x * (x1 - x0), bottom - (min(hi, max(lo, r[part])) - lo) / (hi - lo) * (bottom - top))
                  for s, r in curve if part in r]
            if len(xy) > 1:
                draw.line(xy, fill=colour, width=2)
    for i, (name, colour) in enumerate(zip(curves, COLOURS)):
        draw.text((60 + i * 260, height - 25), f"-- {name}", fill=colour)
    img.save(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("logs", type=Path, nargs="+")
    p.add_argument("--batch", type=int, default=1024)
    args = p.parse_args()
    plot({log.stem: read_curve(log, args.batch) for log in args.logs}, args.out)


if __name__ == "__main__":
    main()
