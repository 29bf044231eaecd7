"""Writes Tests/SketchwiseRasterTests/Fixtures/golden-renders.json: synthetic drawings and their
renders by training/sketchwise_data/raster.py (both channels, ink and stroke-order shading), so
the Swift tests prove that the Swift renderer and the training-time renderer produce the same bytes.

Run from the repository root: python3 training/tools/make_raster_golden.py
"""
import argparse
import json
import math
import os
import random

from sketchwise_data import raster


def drawings():
    rng = random.Random(7)
    circle = [[[50 + 40 * math.cos(a / 10) for a in range(64)], [60 + 40 * math.sin(a / 10) for a in range(64)]]]
    zigzag = [[[i * 7.5 for i in range(20)], [(i % 2) * 30.25 for i in range(20)]]]
    dot = [[[3.0], [4.0]]]
    dots_and_line = [[[0.0], [0.0]], [[100.0, 100.0], [0.0, 0.0]], [[20.0, 80.0], [50.0, 50.0]]]
    far_away = [[[-1e6 + x for x in (0.0, 900.0, 450.0)], [5e5, 5e5, 5e5 + 700.0]]]
    scribble = [[[rng.uniform(0, 800) for _ in range(30)], [rng.uniform(0, 600) for _ in range(30)]] for _ in range(4)]
    tall = [[[10.0, 12.0, 11.0], [0.0, 500.0, 1000.0]]]
    # Longer than raster.SEGMENTS_PER_PATH: stroked in pieces.
    long_scribble = [[[round(rng.uniform(0, 800), 1) for _ in range(600)], [round(rng.uniform(0, 600), 1) for _ in range(600)]],
                     [[float(x) for x in range(513)], [float(x % 40) for x in range(513)]]]
    return {"circle": circle, "zigzag": zigzag, "dot": dot, "dots and line": dots_and_line,
            "far away": far_away, "scribble": scribble, "tall": tall, "long scribble": long_scribble}


def main(argv=None):
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    cases = []
    for name, strokes in drawings().items():
        for channel in raster.CHANNELS:
            for size in (28, 64):
                pixels = raster.render(strokes, size, channel)
                cases.append({"name": name, "size": size, "channel": channel, "strokes": strokes,
                              "pixels": [int(v) for v in pixels.reshape(-1)]})
    out = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "SketchwiseRasterTests", "Fixtures", "golden-renders.json")
    with open(out, "w") as f:
        json.dump({"generator": "training/tools/make_raster_golden.py", "cases": cases}, f, separators=(",", ":"))
    print(f"wrote {len(cases)} renders to {os.path.normpath(out)}")


if __name__ == "__main__":
    main()
