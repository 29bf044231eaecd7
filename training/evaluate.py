#!/usr/bin/env python3
"""Validation accuracy of the EXPORTED models (read back from safetensors + json and run by
export.SpecModel one drawing at a time, sequences unpadded, as the Swift runtime does).

    python3 training/evaluate.py [--models Models] [--data ../shared/data] [--json out.json]

Prints top-1/3/5 per model and for the ensemble (Models/ensemble.json weights on
log-probabilities) on every validation subset: raw strokes (Google-simplified by
sketchwise_data.simplify, then rendered / encoded), simplified strokes, Sketch-RNN npz and
bitmaps (raster model only; the 42 bitmap classes, scored 345-way). The split is the one of
training (sketchwise_data.quickdraw: key_id hash for strokes, index hash for bitmaps/npz).
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

import export as ex  # noqa: E402
import pipeline as pl  # noqa: E402
from sketchwise_data import quickdraw as qd  # noqa: E402
from sketchwise_data.corpus import build_corpus  # noqa: E402


def evaluate(models_dir: Path, data: Path, log=print, bitmap_limit: int | None = None) -> dict:
    torch.set_num_threads(1)
    corpus = build_corpus(data, log=log)
    results: dict = {"sizes": corpus.sizes(), "subsets": {}}
    rm = ex.SpecModel(models_dir, "raster-cnn") if (models_dir / "raster-cnn.json").exists() else None
    sm = ex.SpecModel(models_dir, "stroke-rnn") if (models_dir / "stroke-rnn.json").exists() else None
    ens = None
    if (models_dir / "ensemble.json").exists():
        ens = json.loads((models_dir / "ensemble.json").read_text())
        results["ensemble_weights"] = dict(zip(ens["members"], ens["weights"]))
    for m in (rm, sm):
        if m is not None and m.labels != corpus.classes:
            raise ValueError("model labels differ from categories.txt")
    for name in ("raw", "simplified", "npz"):
        labels, drawings = corpus.val[name]
        if len(labels) == 0:
            continue
        t0 = time.time()
        res = {"n": len(labels)}
        lps = {}
        if rm is not None:
            x = pl.raster_inputs(drawings).numpy()
            lps["raster-cnn"] = np.stack([rm.log_probs(v) for v in x])
        if sm is not None:
            lps["stroke-rnn"] = np.stack([sm.log_probs(v) for v in pl.sequence_inputs(drawings)])
        for k, lp in lps.items():
            res[k] = pl.topk(torch.from_numpy(lp), labels)
        if ens is not None and all(m in lps for m in ens["members"]):
            comb = sum(w * lps[m] for m, w in zip(ens["members"], ens["weights"]))
            res["ensemble"] = pl.topk(torch.from_numpy(comb), labels)
        results["subsets"][name] = res
        log(f"{name}: {len(labels)} drawings, {time.time() - t0:.0f}s")
    if rm is not None and len(corpus.bitmap_val):
        n = len(corpus.bitmap_val) if bitmap_limit is None else min(bitmap_limit, len(corpus.bitmap_val))
        x = pl.bitmap_inputs(corpus.bitmap_val[:n]).numpy()
        lp = np.stack([rm.log_probs(v) for v in x])
        results["subsets"]["bitmap"] = {"n": n, "classes": int(len(set(corpus.bitmap_val_labels[:n].tolist()))),
                                        "raster-cnn": pl.topk(torch.from_numpy(lp), corpus.bitmap_val_labels[:n])}
    return results


def table(results: dict) -> str:
    lines = ["| subset | n | model | top-1 | top-3 | top-5 |", "|---|---|---|---|---|---|"]
    for sub, res in results["subsets"].items():
        for k in ("raster-cnn", "stroke-rnn", "ensemble"):
            if k in res:
                r = res[k]
                lines.append(f"| {sub} | {res['n']} | {k} | {100 * r['top1']:.1f}% | {100 * r['top3']:.1f}% | {100 * r['top5']:.1f}% |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=Path, default=HERE.parent / "Models")
    ap.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--bitmap-limit", type=int, default=None)
    a = ap.parse_args()
    res = evaluate(a.models, a.data, log=lambda m: print(m, file=sys.stderr, flush=True), bitmap_limit=a.bitmap_limit)
    print(json.dumps(res["sizes"]))
    if "ensemble_weights" in res:
        print("ensemble weights:", res["ensemble_weights"])
    print(table(res))
    if a.json:
        a.json.write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
