#!/usr/bin/env python3
"""EfficientNet-Lite0's latency in our runtime and in PyTorch, one thread each, in one run.

    swift build -c release --product sketchwise
    python3 training/tools/bench_photo_model.py [FOLDER] [--sketchwise .build/release/sketchwise] [--rounds 5]

FOLDER holds the fetched model (default $SKETCHWISE_PHOTO_MODELS, else
/usr/local/share/sketchwise/photo-models). Runs ``sketchwise bench --model-file`` (one
thread, ``--rounds`` × 10 inferences), then the efficientnet-lite-pytorch model
with ``torch.set_num_threads(1)`` on as many inferences, and prints both medians.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np
import torch

from sketchwise_training.photo_parity import NAME, pytorch_model

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", type=Path,
                    default=Path(os.environ.get("SKETCHWISE_PHOTO_MODELS", "/usr/local/share/sketchwise/photo-models")))
    ap.add_argument("--sketchwise", type=Path, default=ROOT / ".build/release/sketchwise")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    runs = args.rounds * 10

    out = subprocess.run([str(args.sketchwise), "bench", "--model-file", str(args.folder / f"{NAME}.json"),
                          "--rounds", str(args.rounds), "--json"], check=True, capture_output=True, text=True)
    ours = json.loads(out.stdout)

    torch.set_num_threads(1)
    model = pytorch_model(args.folder)
    x = torch.from_numpy(np.random.default_rng(20).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32))
    times = []
    with torch.inference_mode():
        for i in range(3 + runs):
            start = time.perf_counter()
            model(x)
            if i >= 3:
                times.append((time.perf_counter() - start) * 1000)
    print(f"{NAME}, 1 thread, median of {runs} inferences:")
    print(f"  sketchwise  {ours['p50Inference']:.2f} ms (p99 {ours['p99Inference']:.2f}, min {ours['minInference']:.2f})")
    print(f"  PyTorch {torch.__version__}  {statistics.median(times):.2f} ms (min {min(times):.2f})")


if __name__ == "__main__":
    main()
