#!/usr/bin/env python3
"""What more drawings per class are worth: a learning curve on the classes that have many.

    python3 training/learning_curve.py [--sizes 20,200,2000,all] [--steps 800] [--json out.json]

For the classes with thousands of training drawings (``simplified-extra/``: backpack, car,
monkey, power outlet, shoe, sun), trains the same small raster CNN from scratch on ``n``
drawings per class (the same seeded draw of the training split, every format pooled), with the
usual stroke augmentation and a fixed number of steps, and scores it on all those classes'
validation drawings (never trained on), as an n-way classifier. Only ``n`` changes between
runs, so the curve shows what data alone buys.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import pipeline as pl  # noqa: E402
from models import RasterCNN  # noqa: E402
from sketchwise_data import quickdraw as qd, raster  # noqa: E402
from sketchwise_data.augment import augment_strokes  # noqa: E402
from sketchwise_data.corpus import build_corpus  # noqa: E402

RICH_CLASSES = ["backpack", "car", "monkey", "power outlet", "shoe", "sun"]


def curve_point(pools, val_x, val_y, n, steps: int, batch: int, seed: int, log) -> dict:
    """Train on the first ``n`` drawings of each pool (pools are already shuffled) and score."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    train = [(c, d) for c, pool in enumerate(pools) for d in pool[:n]]
    model = RasterCNN(len(pools), widths=(16, 32, 64), fc=128, dropout=0.3)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=5e-4)
    t0 = time.time()
    model.train()
    for step in range(steps):
        for g in opt.param_groups:
            g["lr"] = 2e-3 * 0.5 * (1 + np.cos(np.pi * step / steps))
        rows = rng.integers(len(train), size=batch)
        x = torch.from_numpy(np.stack([raster.render_channels(augment_strokes(train[i][1], rng), 28, ["ink"]) for i in rows]))
        y = torch.tensor([train[i][0] for i in rows])
        loss = F.cross_entropy(model(x.float() / 255.0)[0], y, label_smoothing=0.1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    result = {"per_class": n if n < 10 ** 9 else "all", "train_drawings": len(train),
              **{k: round(v, 4) for k, v in pl.topk(pl.predict_raster(model, val_x), val_y, ks=(1, 2)).items()},
              "seconds": round(time.time() - t0)}
    log(f"n = {result['per_class']}: {len(train)} drawings, top-1 {100 * result['top1']:.1f} %, {result['seconds']} s")
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    ap.add_argument("--sizes", default="20,200,2000,all", help="drawings per class (all: every training drawing)")
    ap.add_argument("--steps", type=int, default=800, help="training steps per point (same for every n)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None, help="write the curve here as JSON")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)

    def log(msg):
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    corpus = build_corpus(args.data, log=log)
    index = {c: i for i, c in enumerate(corpus.classes)}
    own = {index[c]: k for k, c in enumerate(RICH_CLASSES)}
    rng = np.random.default_rng(args.seed)
    pools = [[] for _ in RICH_CLASSES]
    for lab, variants in zip(corpus.train_labels, corpus.train_variants):
        if int(lab) in own:
            pools[own[int(lab)]].append(variants[0])
    pools = [[pool[i] for i in rng.permutation(len(pool))] for pool in pools]
    val_y, val_d = [], []
    for name in ("raw", "simplified", "npz", "extra"):
        labels, drawings = corpus.val[name]
        for lab, d in zip(labels, drawings):
            if int(lab) in own:
                val_y.append(own[int(lab)])
                val_d.append(d)
    val_x = pl.raster_inputs(val_d)
    log(f"{len(RICH_CLASSES)} classes, training drawings {[len(p) for p in pools]}, {len(val_y)} validation drawings")
    sizes = [10 ** 9 if s == "all" else int(s) for s in args.sizes.split(",")]
    curve = [curve_point(pools, val_x, np.asarray(val_y), n, args.steps, args.batch, args.seed, log) for n in sizes]
    doc = {"classes": RICH_CLASSES, "validation_drawings": len(val_y), "steps": args.steps, "batch": args.batch,
           "model": "RasterCNN 16/32/64, fc 128, from scratch", "curve": curve}
    text = json.dumps(doc, indent=1)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
