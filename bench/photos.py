#!/usr/bin/env python3
"""The photo classifier on labelled photos: our runtime against PyTorch, and the pictures offered.

    swift build -c release --product sketchwise
    python3 bench/photos.py [--sketchwise .build/release/sketchwise] [--db out/library.sqlite]

For every photo of bench/photos.tsv (scikit-image's sample photos, which
``scripts/install-deps.sh --test`` unpacks), runs ``sketchwise photo --json`` (one thread per
photo) and the efficientnet-lite-pytorch model on the same file, preprocessed by
sketchwise_training.photos as the spec says, and prints per photo and in all:

* top-1 and top-5 against the ImageNet labels the table calls right, for both;
* whether both give the same top-1 label, and how many of the top 5 they share;
* whether the pictures offered are ones a person would accept: the first suggestion's label is one
  the table accepts (a photo the table accepts nothing for is left out);
* the time per photo (decode, classify, pictures) that ``sketchwise photo`` reports.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import torch
from PIL import Image

# the training package: pip install -e training (scripts/install-deps.sh --test)
from sketchwise_training.photo_parity import NAME, pytorch_model
from sketchwise_training.photos import preprocess

ROOT = Path(__file__).resolve().parents[1]

MODELS = Path(os.environ.get("SKETCHWISE_PHOTO_MODELS", "/usr/local/share/sketchwise/photo-models"))
PHOTOS = Path(os.environ.get("SKETCHWISE_TEST_PHOTOS", "/usr/local/share/sketchwise/test-photos/scikit-image"))


def read_table(path: Path) -> list[tuple[str, set[str], set[str]]]:
    """(photo, right ImageNet labels, accepted picture labels) per line of bench/photos.tsv."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        photo, right, accepted = (line.split("\t") + ["", ""])[:3]
        rows.append((photo, {x for x in right.split("|") if x}, {x for x in accepted.split("|") if x}))
    return rows


def pytorch_top5(model, spec: dict, path: Path) -> list[str]:
    """PyTorch's 5 most probable labels for the photo file."""
    rgb = np.asarray(Image.open(path).convert("RGB"))
    x = torch.from_numpy(preprocess(rgb, spec["input"]["image"]))[None]
    with torch.inference_mode():
        logits = model(x)[0].numpy()
    return [spec["labels"][i] for i in np.argsort(-logits)[:5]]


def ours(binary: Path, db: Path, paths: list[Path]) -> tuple[list[dict], str]:
    """``sketchwise photo --json`` on the photos, one thread: one object per photo, and the timing line."""
    out = subprocess.run([str(binary), "photo", *map(str, paths), "--db", str(db), "--json"],
                         check=True, capture_output=True, text=True)
    timing = next((line for line in out.stderr.splitlines() if line.startswith("photos:")), "")
    return [json.loads(line) for line in out.stdout.splitlines()], timing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sketchwise", type=Path, default=ROOT / ".build/release/sketchwise")
    ap.add_argument("--db", type=Path, default=ROOT / "out/library.sqlite", help="the library index (sketchwise index build)")
    ap.add_argument("--table", type=Path, default=ROOT / "bench/photos.tsv")
    args = ap.parse_args(argv)

    rows = read_table(args.table)
    spec = json.loads((MODELS / f"{NAME}.json").read_text(encoding="utf-8"))
    torch.set_num_threads(1)
    model = pytorch_model(MODELS)
    answers, timing = ours(args.sketchwise, args.db, [PHOTOS / photo for photo, _, _ in rows])

    counts = dict(labelled=0, ours1=0, ours5=0, torch1=0, torch5=0, same1=0, shared5=0, judged=0, accepted=0)
    print(f"{'photo':22} {'right':>5}  {'ours top-1':28} {'PyTorch top-1':28} {'same':>4} {'top-5 shared':>12}  first picture")
    for (photo, right, accepted), answer in zip(rows, answers):
        mine = [label["text"] for label in answer["labels"]]
        theirs = pytorch_top5(model, spec, PHOTOS / photo)
        first = answer["suggestions"][0] if answer["suggestions"] else None
        if right:
            counts["labelled"] += 1
            counts["ours1"] += mine[0] in right
            counts["ours5"] += bool(right & set(mine))
            counts["torch1"] += theirs[0] in right
            counts["torch5"] += bool(right & set(theirs))
        counts["same1"] += mine[0] == theirs[0]
        counts["shared5"] += len(set(mine) & set(theirs))
        if accepted:
            counts["judged"] += 1
            counts["accepted"] += bool(first and first["label"] in accepted)
        verdict = "" if not accepted else (" ✓" if first and first["label"] in accepted else " ✗")
        picture = f"{first['title']} [{first['label']}]" if first else "none"
        print(f"{photo:22} {'yes' if right else '-':>5}  {mine[0][:28]:28} {theirs[0][:28]:28} "
              f"{'yes' if mine[0] == theirs[0] else 'NO':>4} {len(set(mine) & set(theirs)):>10}/5  {picture}{verdict}")

    n, labelled = len(rows), counts["labelled"]
    print(f"\n{labelled} photos with a right ImageNet label:  ours top-1 {counts['ours1']}/{labelled}, top-5 "
          f"{counts['ours5']}/{labelled};  PyTorch top-1 {counts['torch1']}/{labelled}, top-5 {counts['torch5']}/{labelled}")
    print(f"{n} photos: same top-1 as PyTorch {counts['same1']}/{n}; top-5 labels shared {counts['shared5']}/{5 * n}")
    print(f"first picture acceptable: {counts['accepted']}/{counts['judged']} photos")
    print(f"ours, one thread: {timing}")


if __name__ == "__main__":
    main()
