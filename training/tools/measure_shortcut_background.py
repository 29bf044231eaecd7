#!/usr/bin/env python3
"""Would a background of trained classes make a shortcut's "unknown" sharper? (issue #40, a lead)

Today a shortcut answers unknown when its nearest taught example is farther than a threshold
(``shortcut_calibration``). This measures other scores for the same decision:

    d(nearest taught example) - lam * d(k-th nearest background vector)

and the ratio of the two, where the background is the embedding of drawings of Quick, Draw!
classes the embedding was trained on (never the held-out ones), or those classes' mean unit
vectors (``--means``: one per class, which a model file could carry as weights). A drawing in a
crowded region of the embedding (a simple shape close to everything) then needs to be nearer
to a taught example to fire. Each score's threshold is set on the validation half of the
held-out classes to answer ``--reject`` of untaught drawings unknown, in open-set episodes like
``shortcut_calibration``'s (5 ways, 3 examples), then measured on the test half.

    python3 training/tools/measure_shortcut_background.py [--per-class 10] [--means]

The unseen Omniglot characters (the alphabets of the evaluation zip not trained on) are measured
with the same thresholds, as the shortcut calibration does: no unseen Omniglot validation set
exists. That is where a background fails. Untaught characters are far from every trained Quick,
Draw! class, so subtracting that distance moves them below thresholds set for drawings.

Measured with ``--per-class 20 --means`` (3,000 episodes each; taught answered rightly /
untaught answered unknown on the test half, then on Omniglot): the nearest distance alone
47.2 / 87.5 % and 95.9 / 92.9 %; the 287 class means, k 3, lam 0.75: 51.6 / 89.3 % and 99.1 / 56.3 %.
Not shipped: a few points on drawings cost a third of the untaught characters' "unknown".
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from sketchwise_data import quickdraw as qd
from sketchwise_training import MODELS
from sketchwise_training.embedding import alphabet, embed, evaluation_sets, load_embedding, load_quickdraw
from sketchwise_training.shortcut_calibration import loosest_rejecting, open_set_episodes, qd_validation


def background(model, views, data: Path, per_class: int, means: bool) -> np.ndarray:
    """Unit vectors of drawings of the trained Quick, Draw! classes, or of each class's mean."""
    items = load_quickdraw(data, held_out=False, per_class=per_class)
    vectors = embed(model, [d for _, d in items], views=views).numpy()
    if not means:
        return vectors
    labels = np.array([label for label, _ in items])
    centres = np.stack([vectors[labels == label].mean(0) for label in sorted(set(labels))])
    return centres / np.linalg.norm(centres, axis=1, keepdims=True)


def episodes(embeddings: np.ndarray, labels: list[str], bank: np.ndarray, count: int, seed: int):
    """``shortcut_calibration``'s open-set episodes (5 ways, 3 examples) -> (whether each taught
    query got its own label, the taught and the untaught queries' nearest taught distances, and
    their sorted distances to the background's nearest 10)."""
    right, taught, untaught, (taught_queries, untaught_queries) = open_set_episodes(embeddings, labels, 5, 3, count, seed)

    def far(queries):
        return np.sort(np.maximum(0, 1 - queries @ bank.T), axis=1)[:, :10]

    return right, (taught, far(taught_queries)), (untaught, far(untaught_queries))


def score(distances, rule) -> np.ndarray:
    nearest, far = distances
    kind, k, lam = rule
    return nearest - lam * far[:, k - 1] if kind == "minus" else nearest / np.maximum(far[:, k - 1], 1e-6)


def rates(episode, rule, threshold: float) -> tuple[float, float]:
    """(taught answered rightly, untaught answered unknown), in %."""
    right, taught, untaught = episode
    return 100 * float(np.mean(right & (score(taught, rule) <= threshold))), 100 * float(np.mean(score(untaught, rule) > threshold))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=Path, default=MODELS)
    ap.add_argument("--name", default="sketch-embedding")
    ap.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    ap.add_argument("--per-class", type=int, default=10, help="background drawings per trained class")
    ap.add_argument("--means", action="store_true", help="the background is each trained class's mean unit vector")
    ap.add_argument("--episodes", type=int, default=3000)
    ap.add_argument("--reject", type=float, default=0.92, help="share of untaught validation drawings answered unknown")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    spec = json.loads((args.models / f"{args.name}.json").read_text(encoding="utf-8"))
    model = load_embedding(args.models, args.name)
    views = tuple(spec["input"].get("embeddingRotations", [0.0]))
    trained = set(spec["training"]["labels"])
    characters, drawings = evaluation_sets(args.data, "strokes_background_small2.zip", sorted({alphabet(x) for x in trained if "/" in x}))
    embeddings = embed(model, [d for _, d in drawings], views=views).numpy()
    labels = np.array([label for label, _ in drawings])
    character_embeddings = embed(model, [d for _, d in characters], views=views).numpy()
    validation = np.array([qd_validation(label) for label in labels])
    bank = background(model, views, args.data, args.per_class, args.means)
    print(f"background: {len(bank)} unit vectors of trained classes{' (class means)' if args.means else ''}; "
          f"held-out classes: {len(set(labels[validation]))} validation, {len(set(labels[~validation]))} test; "
          f"{len({label for label, _ in characters})} unseen Omniglot characters", flush=True)

    chosen = episodes(embeddings[validation], list(labels[validation]), bank, args.episodes, seed=1)
    measured = episodes(embeddings[~validation], list(labels[~validation]), bank, args.episodes, seed=2)
    written = episodes(character_embeddings, [label for label, _ in characters], bank, args.episodes, seed=2)
    rules = [("minus", 1, 0.0)] + [("minus", k, lam) for k in (1, 3, 10) for lam in (0.25, 0.5, 0.75, 1.0)]
    rules += [("ratio", k, 0.0) for k in (1, 3, 10)]
    print("score: taught answered rightly / untaught answered unknown, validation | test | Omniglot (%)")
    for rule in rules:
        threshold = loosest_rejecting(score(chosen[2], rule), args.reject)
        name = "nearest distance" if rule[2] == 0 and rule[0] == "minus" else (
            f"nearest - {rule[2]} x background #{rule[1]}" if rule[0] == "minus" else f"nearest / background #{rule[1]}")
        measures = (*rates(chosen, rule, threshold), *rates(measured, rule, threshold), *rates(written, rule, threshold))
        print(f"  {name:<36} %.1f / %.1f | %.1f / %.1f | %.1f / %.1f" % measures, flush=True)


if __name__ == "__main__":
    main()
