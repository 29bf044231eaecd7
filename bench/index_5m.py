#!/usr/bin/env python3
"""Google's full data, at scale: writes a synthetic Quick, Draw! folder of at least 5 million
simplified drawings in Google's binary ``.bin`` format, builds the on-disk index from it, starts
training on the index, and reports wall time and peak memory (RSS) of each step.

    python3 bench/index_5m.py --work /tmp/qd-5m [--drawings 5000000] [--classes 345]

The drawings are made up here (random strokes, a few hundred patterns reused under new
``key_id`` values): the point is the size, not the content. Not part of CI.
"""
from __future__ import annotations

import argparse
import resource
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from sketchwise_data.quickdraw import encode_bin  # the training package: pip install -e training

TRAINING = Path(__file__).resolve().parents[1] / "training"


def patterns(rng, count: int) -> list[bytes]:
    """Encoded records (key_id 0) of random simplified drawings: 1-6 strokes of 2-30 points."""
    out = []
    for _ in range(count):
        strokes = [[rng.integers(0, 256, n).tolist(), rng.integers(0, 256, n).tolist()]
                   for n in rng.integers(2, 31, int(rng.integers(1, 7)))]
        out.append(encode_bin({"key_id": "0", "countrycode": "US", "recognized": True,
                               "timestamp": "2017-03-01 00:00:00.00000 UTC", "drawing": strokes}))
    return out


def write_data(root: Path, drawings: int, classes: int, rng) -> int:
    qdir = root / "quickdraw"
    (qdir / "simplified").mkdir(parents=True, exist_ok=True)
    names = [f"class {i:03d}" for i in range(classes)]
    (qdir / "categories.txt").write_text("\n".join(names) + "\n")
    pool, key, total = patterns(rng, 500), 10 ** 15, 0
    per_class = drawings // classes + 1
    for name in names:
        picks = rng.integers(0, len(pool), per_class)
        with open(qdir / "simplified" / f"{name}.bin", "wb") as f:
            f.write(b"".join(struct.pack("<Q", key + i) + pool[p][8:] for i, p in enumerate(picks)))
        key += per_class
        total += per_class
    return total


def measured(cmd: list[str]) -> tuple[float, float, str]:
    """Runs ``cmd``; -> (seconds, the child's peak RSS in GB, its output)."""
    t0 = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=TRAINING)
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return time.time() - t0, max(peak, before) / 1024 ** 2, proc.stdout + proc.stderr


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--drawings", type=int, default=5_000_000)
    p.add_argument("--classes", type=int, default=345)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    if args.work.exists():
        shutil.rmtree(args.work)
    t0 = time.time()
    total = write_data(args.work / "data", args.drawings, args.classes, np.random.default_rng(0))
    size = sum(f.stat().st_size for f in (args.work / "data").rglob("*.bin"))
    print(f"wrote {total:,} drawings in .bin files ({size / 1e9:.2f} GB) in {time.time() - t0:.0f} s", flush=True)
    trainer = [sys.executable, "-m", "sketchwise_training.train_on_device"]  # run in training/
    seconds, rss, _ = measured(trainer + ["index", "--data", str(args.work / "data"), "--out", str(args.work / "index")])
    index_size = sum(f.stat().st_size for f in (args.work / "index").iterdir())
    print(f"index: built in {seconds:.0f} s, peak RSS {rss:.2f} GB, {index_size / 1e9:.2f} GB on disk", flush=True)
    seconds, rss, out = measured(trainer + ["train", "--index", str(args.work / "index"), "--run-dir", str(args.work / "run"),
                                            "--device", "cpu", "--steps", str(args.steps), "--batch", "256",
                                            "--eval-every", str(args.steps), "--val-limit", "2000"])
    print(out.strip().splitlines()[-1])
    print(f"training: {args.steps} steps of 256 in {seconds:.0f} s (start-up included), peak RSS {rss:.2f} GB")


if __name__ == "__main__":
    main()
