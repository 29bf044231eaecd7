"""Validation accuracy of the EXPORTED models (read back from safetensors + json and run by
export.SpecModel one drawing at a time, sequences unpadded, as the Swift runtime does).

    python3 -m sketchwise_training.evaluate [--models Models] [--data ../shared/data] [--json out.json]

Prints top-1/3/5 per model and for the ensemble (Models/ensemble.json weights on
log-probabilities) on every validation subset: raw strokes (Google-simplified by
sketchwise_data.simplify, then rendered / encoded), simplified strokes, Sketch-RNN npz and
bitmaps (image-reading models and the ensemble of those; the 42 bitmap classes, scored 345-way). The split is the one of
training (sketchwise_data.quickdraw: key_id hash for strokes, index hash for bitmaps/npz).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from sketchwise_data import quickdraw as qd
from sketchwise_data.corpus import build_corpus

from . import MODELS
from . import export as ex
from . import pipeline as pl


def member_names(models_dir: Path) -> list[str]:
    """raster-cnn, stroke-rnn and every further member ensemble.json names, in that order."""
    names = [n for n in ("raster-cnn", "stroke-rnn") if (models_dir / f"{n}.json").exists()]
    if (models_dir / "ensemble.json").exists():
        names += [m for m in json.loads((models_dir / "ensemble.json").read_text())["members"] if m not in names]
    return names


def member_log_probs(model: ex.SpecModel, drawings) -> np.ndarray:
    """A model's answers (views averaged, as the runtime does) for Google-simplified drawings."""
    if model.input["kind"] == "raster":
        return np.stack([model.log_probs(v) for v in pl.raster_inputs(drawings, model.raster_channels, model.raster_size).numpy()])
    return np.stack([model.log_probs(v) for v in pl.sequence_inputs(drawings)])


def combine(lps: dict, members: list[str], weights: list[float]) -> np.ndarray:
    """The ensemble's answer: weighted mean of the members' log-probabilities (weights of the
    members present renormalised; bitmaps only reach the members that read plain ink, weighed by
    ensemble.json's ``bitmapWeights`` when it has them)."""
    present = [(m, w) for m, w in zip(members, weights) if m in lps]
    total = sum(w for _, w in present)
    return sum((w / total) * lps[m] for m, w in present)


def bitmap_log_probs(models: dict, corpus, limit: int | None = None):
    """The answers of the models that read Google's bitmaps on the (first ``limit``) bitmap
    validation images -> ({name: log-probabilities}, labels); None when no model reads them or
    there are none."""
    readers = {n: m for n, m in models.items() if m.input["kind"] == "raster" and pl.reads_bitmaps(m.raster_channels, m.raster_size)}
    if not readers or not len(corpus.bitmap_val):
        return None
    n = len(corpus.bitmap_val) if limit is None else min(limit, len(corpus.bitmap_val))
    x = pl.bitmap_inputs(corpus.bitmap_val[:n]).numpy()
    return {k: np.stack([m.log_probs(v) for v in x]) for k, m in readers.items()}, corpus.bitmap_val_labels[:n]


def evaluate(models_dir: Path, data: Path, log=print, bitmap_limit: int | None = None) -> dict:
    torch.set_num_threads(1)
    corpus = build_corpus(data, log=log)
    results: dict = {"sizes": corpus.sizes(), "subsets": {}}
    models = {n: ex.SpecModel(models_dir, n) for n in member_names(models_dir)}
    ens = None
    if (models_dir / "ensemble.json").exists():
        ens = json.loads((models_dir / "ensemble.json").read_text())
        results["ensemble_weights"] = dict(zip(ens["members"], ens["weights"]))
    for n, m in models.items():
        if m.labels != corpus.classes:
            raise ValueError(f"{n}: model labels differ from categories.txt")
    for name in ("raw", "simplified", "npz", "extra"):
        labels, drawings = corpus.val[name]
        if len(labels) == 0:
            continue
        t0 = time.time()
        res = {"n": len(labels)}
        lps = {n: member_log_probs(m, drawings) for n, m in models.items()}
        for k, lp in lps.items():
            res[k] = pl.topk(torch.from_numpy(lp), labels)
        if ens is not None:
            res["ensemble"] = pl.topk(torch.from_numpy(combine(lps, ens["members"], ens["weights"])), labels)
        results["subsets"][name] = res
        log(f"{name}: {len(labels)} drawings, {time.time() - t0:.0f}s")
    bitmaps = bitmap_log_probs(models, corpus, bitmap_limit)
    if bitmaps:
        lps, y = bitmaps
        res = {"n": len(y), "classes": int(len(set(y.tolist())))}
        res.update({k: pl.topk(torch.from_numpy(lp), y) for k, lp in lps.items()})
        if ens is not None:
            res["ensemble"] = pl.topk(torch.from_numpy(combine(lps, ens["members"], ens.get("bitmapWeights", ens["weights"]))), y)
        results["subsets"]["bitmap"] = res
    return results


def table(results: dict) -> str:
    lines = ["| subset | n | model | top-1 | top-3 | top-5 |", "|---|---|---|---|---|---|"]
    for sub, res in results["subsets"].items():
        for k, r in res.items():
            if isinstance(r, dict):
                lines.append(f"| {sub} | {res['n']} | {k} | {100 * r['top1']:.1f}% | {100 * r['top3']:.1f}% | {100 * r['top5']:.1f}% |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=Path, default=MODELS)
    ap.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--bitmap-limit", type=int, default=None)
    a = ap.parse_args(argv)
    res = evaluate(a.models, a.data, log=lambda m: print(m, file=sys.stderr, flush=True), bitmap_limit=a.bitmap_limit)
    print(json.dumps(res["sizes"]))
    if "ensemble_weights" in res:
        print("ensemble weights:", res["ensemble_weights"])
    print(table(res))
    if a.json:
        a.json.write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
