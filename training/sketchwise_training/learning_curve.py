"""What more drawings per class are worth: a learning curve on the classes that have many.

    python3 -m sketchwise_training.learning_curve [--sizes 20,200,2000,all] [--epochs 2] [--json out.json]

The classes of ``simplified-extra/`` (backpack, car, monkey, power outlet, shoe, sun) have
thousands of training drawings where the others have about twenty. Starting each time from the
same bundled ``raster-cnn`` (which saw about 20 drawings of each), the same short fine-tuning
(epochs of 64 draws of every class and 1,000 of each of the six, the usual stroke augmentation)
gives those six classes ``n`` distinct drawings each — the same seeded draw of their training split — and the other
classes all of theirs. Scored as the 345-way classifier on the six classes' validation
drawings (never trained on), and on the raw validation drawings of all classes. Only ``n``
changes between runs, so the curve shows what data alone buys a class.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from sketchwise_data import quickdraw as qd, raster
from sketchwise_data.augment import augment_strokes
from sketchwise_data.corpus import build_corpus

from . import MODELS
from . import pipeline as pl
from .models import load_exported

RICH_CLASSES = ["backpack", "car", "monkey", "power outlet", "shoe", "sun"]


def curve_point(corpus, rich: dict, n: int, rich_draws: int, models: Path, epochs: int, seed: int, sets: dict, log) -> dict:
    """Fine-tune the bundled raster-cnn with ``n`` drawings of each rich class (``rich_draws``
    draws of each per epoch, whatever ``n``, so only the number of distinct drawings changes) and
    score it."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = load_exported(models, "raster-cnn")
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=5e-4)
    pools = [[] for _ in corpus.classes]
    for i, lab in enumerate(corpus.train_labels):
        pools[int(lab)].append(i)
    for lab, indices in rich.items():
        pools[lab] = indices[:n]
    t0 = time.time()
    model.train()
    for _ in range(epochs):
        draws = [rich_draws if lab in rich else 64 for lab in range(len(pools))]
        rows = np.concatenate([rng.choice(p, k, replace=len(p) < k) for p, k in zip(pools, draws) if p])
        rows = rows[rng.permutation(len(rows))]
        for b in range(0, len(rows), 128):
            idx = rows[b:b + 128]
            x = torch.from_numpy(np.stack([raster.render_channels(augment_strokes(corpus.train_variants[i][0], rng), 28, ["ink"])
                                           for i in idx])).float() / 255.0
            y = torch.from_numpy(corpus.train_labels[idx])
            loss = F.cross_entropy(model(x)[0], y, label_smoothing=0.1)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    result = {"per_class": n if n < 10 ** 9 else "all", "rich_train_drawings": sum(len(pools[lab]) for lab in rich)}
    for name, (x, y) in sets.items():
        result[name] = {k: round(v, 4) for k, v in pl.topk(pl.predict_raster(model, x), y).items()}
    result["seconds"] = round(time.time() - t0)
    log(f"n = {result['per_class']}: rich classes top-1 {100 * result['rich']['top1']:.1f} %, "
        f"all raw top-1 {100 * result['raw']['top1']:.1f} %, {result['seconds']} s")
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    ap.add_argument("--models", type=Path, default=MODELS, help="where raster-cnn is")
    ap.add_argument("--sizes", default="20,200,2000,all", help="drawings per rich class (all: every training drawing)")
    ap.add_argument("--epochs", type=int, default=2, help="fine-tuning epochs per point (64 draws per class each)")
    ap.add_argument("--rich-draws", type=int, default=1000,
                    help="draws of each rich class per epoch, the same for every n (others: 64)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None, help="write the curve here as JSON")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)

    def log(msg):
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    corpus = build_corpus(args.data, log=log)
    index = {c: i for i, c in enumerate(corpus.classes)}
    rng = np.random.default_rng(args.seed)
    rich = {index[c]: [] for c in RICH_CLASSES}
    for i, lab in enumerate(corpus.train_labels):
        if int(lab) in rich:
            rich[int(lab)].append(i)
    rich = {lab: [indices[k] for k in rng.permutation(len(indices))] for lab, indices in rich.items()}
    rich_y, rich_d = [], []
    for name in ("raw", "simplified", "npz", "extra"):
        for lab, d in zip(*corpus.val[name]):
            if int(lab) in rich:
                rich_y.append(int(lab))
                rich_d.append(d)
    sets = {"rich": (pl.raster_inputs(rich_d), np.asarray(rich_y)),
            "raw": (pl.raster_inputs(corpus.val["raw"][1]), corpus.val["raw"][0])}
    log(f"rich classes {RICH_CLASSES}: training drawings {[len(v) for v in rich.values()]}, {len(rich_y)} validation drawings")
    sizes = [10 ** 9 if s == "all" else int(s) for s in args.sizes.split(",")]
    curve = [curve_point(corpus, rich, n, args.rich_draws, args.models, args.epochs, args.seed, sets, log) for n in sizes]
    doc = {"classes": RICH_CLASSES, "rich_validation_drawings": len(rich_y), "raw_validation_drawings": len(corpus.val["raw"][0]),
           "epochs": args.epochs, "rich_draws_per_epoch": args.rich_draws,
           "start": "bundled raster-cnn (about 20 drawings of each rich class)", "curve": curve}
    text = json.dumps(doc, indent=1)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
