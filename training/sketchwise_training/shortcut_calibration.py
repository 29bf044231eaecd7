"""Calibrate when a personal shortcut answers "unknown", per number of examples.

The shortcut classifier (Swift's ``NearestNeighborClassifier``) lets the 3 nearest examples vote,
each by 1 / (distance + 0.01), and answers unknown when the nearest example is farther than a
threshold. One threshold for all does not hold: a label taught from more examples has more of
them near any drawing, so with the earlier fixed 0.25 a shortcut of 5 examples fired on far more
untaught drawings than one of 3. Here the threshold is chosen **per number of examples** (1 to
10; more use the tenth) as the loosest that still answers ``--reject`` of untaught drawings
unknown. By default that share is the one the earlier rule gave with 3 examples, the fewest a
person teaches (``--anchor-examples``, ``--anchor-distance``): 3 examples keep their threshold,
fewer get a looser one and more a stricter one, so adding examples no longer makes a shortcut
fire on more untaught drawings.

The choice is made on **validation** labels the embedding never saw and the few-shot test does
not use: a fixed half of the held-out Quick, Draw! classes (by a hash of the class name), and
optionally an Omniglot alphabet of the evaluation zip (``--validation-alphabet``), in open-set
episodes like ``sketchwise fewshot --open-set``'s: each teaches ``--ways`` labels with n
examples, then asks one more drawing of each and one drawing of each of ``--ways`` other labels,
the untaught drawings of both kinds pooled. The other held-out classes and alphabets are only measured;
``sketchwise fewshot --unseen`` leaves out the validation labels, which the spec lists as
``training.validationLabels``. The thresholds go into the spec as
``shortcuts.unknownDistances`` (docs/shortcuts.md).

    python3 -m sketchwise_training.shortcut_calibration --models Models --name sketch-embedding
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from sketchwise_data import quickdraw as qd

from . import MODELS
from .embedding import alphabet, embed, evaluation_sets, load_embedding, qd_validation

#: Numbers of examples the thresholds are chosen for; a label with more uses the last.
MAX_EXAMPLES = 10
#: The classifier's vote (Swift's NearestNeighborClassifier.Configuration defaults).
NEIGHBORS, VOTE_OFFSET = 3, 0.01


def answers(queries: np.ndarray, examples: np.ndarray, example_labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The classifier's label for each query (before the unknown test) and its nearest example's distance."""
    distance = np.maximum(0, 1 - queries @ examples.T)
    nearest = np.argsort(distance, axis=1)[:, :NEIGHBORS]
    labels = []
    for row, order in zip(distance, nearest):
        votes: dict[int, float] = {}
        for i in order:
            votes[int(example_labels[i])] = votes.get(int(example_labels[i]), 0.0) + 1 / (row[i] + VOTE_OFFSET)
        # ties go to the label with the nearer example, which comes first in `order`
        best = max(votes.values())
        labels.append(next(int(example_labels[i]) for i in order if votes[int(example_labels[i])] == best))
    return np.asarray(labels), distance[np.arange(len(queries)), nearest[:, 0]]


def open_set_episodes(embeddings: np.ndarray, labels: list[str], ways: int, shots: int, episodes: int, seed: int):
    """Open-set episodes: (whether each taught query got its own label, the taught queries'
    nearest distances, the untaught queries' nearest distances, and the taught and the untaught
    queries themselves, in the same order)."""
    rng = np.random.default_rng(seed)
    by_label: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        by_label.setdefault(label, []).append(i)
    eligible = sorted(l for l, ix in by_label.items() if len(ix) > shots)
    if len(eligible) < 2 * ways:
        raise ValueError(f"open-set {ways}-way {shots}-shot needs {2 * ways} labels with {shots + 1} drawings; {len(eligible)} have")
    right, taught, untaught, asked = [], [], [], []
    for _ in range(episodes):
        chosen = rng.choice(len(eligible), 2 * ways, replace=False)
        examples, queries = [], []
        for c in chosen[:ways]:
            ix = rng.permutation(by_label[eligible[c]])[:shots + 1]
            examples.append(embeddings[ix[:shots]])
            queries.append(embeddings[ix[shots]])
        for c in chosen[ways:]:
            queries.append(embeddings[rng.choice(by_label[eligible[c]])])
        label, nearest = answers(np.stack(queries), np.concatenate(examples), np.repeat(np.arange(ways), shots))
        right.append(label[:ways] == np.arange(ways))
        taught.append(nearest[:ways])
        untaught.append(nearest[ways:])
        asked.append(np.stack(queries))
    every = np.stack(asked)  # [episode, query, dimension]: the taught queries first in each
    taught_queries, untaught_queries = (every[:, part].reshape(-1, every.shape[-1]) for part in (slice(ways), slice(ways, None)))
    return np.concatenate(right), np.concatenate(taught), np.concatenate(untaught), (taught_queries, untaught_queries)


def loosest_rejecting(untaught: np.ndarray, reject: float) -> float:
    """The largest threshold that leaves at least ``reject`` of the untaught distances beyond it."""
    ordered = np.sort(untaught)
    return float(ordered[int(np.floor((1 - reject) * len(ordered)))]) - 1e-6


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=Path, default=MODELS)
    ap.add_argument("--name", default="sketch-embedding")
    ap.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    ap.add_argument("--eval-zip", default="strokes_background_small2.zip", help="the Omniglot zip of unseen alphabets")
    ap.add_argument("--validation-alphabet", default="",
                    help="an unseen Omniglot alphabet the thresholds are also chosen on (default: none, Omniglot is only measured)")
    ap.add_argument("--reject", type=float, help="share of untaught validation drawings answered unknown (default: the anchor's)")
    ap.add_argument("--anchor-examples", type=int, default=3, help="the number of examples whose earlier share is kept")
    ap.add_argument("--anchor-distance", type=float, default=0.25, help="the earlier threshold, for every number of examples")
    ap.add_argument("--ways", type=int, default=5)
    ap.add_argument("--episodes", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)

    spec_path = args.models / f"{args.name}.json"
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    model = load_embedding(args.models, args.name)
    views = tuple(spec["input"].get("embeddingRotations", [0.0]))
    trained = set(spec["training"]["labels"])
    characters, drawings = evaluation_sets(args.data, args.eval_zip, sorted({alphabet(l) for l in trained if "/" in l}))
    if args.validation_alphabet and args.validation_alphabet not in {alphabet(l) for l, _ in characters}:
        raise SystemExit(f"--validation-alphabet {args.validation_alphabet} is not an unseen alphabet of {args.eval_zip}")
    sets = {}
    for kind, items, is_validation in (("Quick, Draw!", drawings, lambda l: qd_validation(l)),
                                       ("Omniglot", characters, lambda l: alphabet(l) == args.validation_alphabet)):
        embeddings = embed(model, [d for _, d in items], views=views).numpy()
        chosen = np.array([is_validation(l) for l, _ in items])
        labels = np.array([l for l, _ in items])
        sets[kind] = {"validation": (embeddings[chosen], list(labels[chosen])), "test": (embeddings[~chosen], list(labels[~chosen]))}
        print(f"{kind}: validation {len(set(labels[chosen]))} labels, test {len(set(labels[~chosen]))} labels", flush=True)

    def pooled_untaught(n: int) -> np.ndarray:
        return np.concatenate([open_set_episodes(*parts["validation"], args.ways, n, args.episodes, args.seed)[2]
                               for parts in sets.values() if parts["validation"][1]])

    if args.reject is None:
        args.reject = float(np.mean(pooled_untaught(args.anchor_examples) > args.anchor_distance))
        print(f"target: {args.reject:.1%} of untaught validation drawings unknown, as {args.anchor_distance} gives with "
              f"{args.anchor_examples} examples", flush=True)
    distances = [round(loosest_rejecting(pooled_untaught(n), args.reject), 4) for n in range(1, MAX_EXAMPLES + 1)]
    print("thresholds by number of examples: " + ", ".join(f"{n}: {d:.4f}" for n, d in enumerate(distances, 1)), flush=True)
    for part in ("validation", "test"):
        for kind, parts in sets.items():
            for n in (1, 3, 5) if parts[part][1] else ():
                right, taught, untaught, _ = open_set_episodes(*parts[part], args.ways, n, args.episodes, args.seed + 1)
                d = distances[n - 1]
                print(f"  {part} {kind} {args.ways}-way {n}-shot: taught answered rightly {np.mean(right & (taught <= d)) * 100:.1f} %, "
                      f"untaught answered unknown {np.mean(untaught > d) * 100:.1f} %", flush=True)

    validation_labels = sorted(l for parts in sets.values() for l in set(parts["validation"][1]))
    spec["shortcuts"] = {
        "unknownDistances": distances,
        "notes": (f"For 1 to {MAX_EXAMPLES} examples, the loosest threshold that answers {args.reject:.1%} of untaught "
                  f"drawings unknown in {args.episodes} open-set {args.ways}-way episodes on labels the embedding never saw "
                  f"(training.validationLabels: half the held-out Quick, Draw! classes"
                  + (f" and the {args.validation_alphabet} alphabet" if args.validation_alphabet else "")
                  + "); sketchwise_training.shortcut_calibration."),
    }
    spec["training"]["validationLabels"] = validation_labels
    spec_path.write_text(json.dumps(spec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {spec_path}", flush=True)


if __name__ == "__main__":
    main()
