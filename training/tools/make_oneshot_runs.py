#!/usr/bin/env python3
"""Writes one-shot runs in the Omniglot layout (Lake et al.) from an Omniglot images zip, for
``sketchwise fewshot --runs``: ``runNN/training/classKK.png`` (one drawer's image of each of N
characters), ``runNN/test/itemKK.png`` (another drawer's image of each) and
``runNN/class_labels.txt`` (``test/itemKK.png training/classJJ.png``). Characters are drawn at
random from the whole zip, leaving out ``--skip-alphabets`` (those the embedding was trained on).

    python3 training/tools/make_oneshot_runs.py ../shared/data/omniglot/images_background_small2.zip \\
        --skip-alphabets Greek,Latin --runs 20 --ways 20 --out /tmp/oneshot-runs

The images are copies of the shared data: write them outside the repository.
"""
import argparse
import random
import zipfile
from pathlib import Path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("images", type=Path)
    ap.add_argument("--skip-alphabets", default="")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--ways", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    skip = {a for a in args.skip_alphabets.split(",") if a}
    rng = random.Random(args.seed)
    with zipfile.ZipFile(args.images) as z:
        characters: dict[str, list[str]] = {}
        for name in sorted(z.namelist()):
            parts = name.split("/")
            if name.endswith(".png") and len(parts) >= 3 and parts[-3] not in skip:
                characters.setdefault("/".join(parts[-3:-1]), []).append(name)
        keys = sorted(k for k, v in characters.items() if len(v) >= 2)
        for r in range(1, args.runs + 1):
            run = args.out / f"run{r:02d}"
            (run / "training").mkdir(parents=True, exist_ok=True)
            (run / "test").mkdir(parents=True, exist_ok=True)
            chosen = rng.sample(keys, args.ways)
            order = list(range(args.ways))
            rng.shuffle(order)
            lines = []
            for k, character in enumerate(chosen, 1):
                train, test = rng.sample(characters[character], 2)
                (run / "training" / f"class{k:02d}.png").write_bytes(z.read(train))
                item = order[k - 1] + 1
                (run / "test" / f"item{item:02d}.png").write_bytes(z.read(test))
                lines.append((item, f"test/item{item:02d}.png training/class{k:02d}.png"))
            (run / "class_labels.txt").write_text("".join(line + "\n" for _, line in sorted(lines)))
    print(f"wrote {args.runs} runs of {args.ways} characters ({len(keys)} available) to {args.out}")


if __name__ == "__main__":
    main()
