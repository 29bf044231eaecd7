"""Synthetic Quick, Draw!-format data (made up here; never dataset content)."""
import json

import numpy as np


def random_raw(rng, n_strokes=3):
    d = []
    t = 0
    for _ in range(n_strokes):
        n = int(rng.integers(1, 12))
        xs = (rng.uniform(0, 900, n)).round().astype(int).tolist()
        ys = (rng.uniform(0, 700, n)).round().astype(int).tolist()
        ts = list(range(t, t + 10 * n, 10))
        t += 10 * n + 100
        d.append([xs, ys, ts])
    return d


def write_dataset(root, classes=("cat", "dog", "The Eiffel Tower"), per_class=30, seed=0):
    """<root>/quickdraw/{categories.txt, raw, simplified, sketchrnn, bitmap}; key_ids shared
    between raw and simplified for the first half of each class."""
    from sketchwise_data.simplify import simplify_drawing

    rng = np.random.default_rng(seed)
    q = root / "quickdraw"
    for sub in ("raw", "simplified", "sketchrnn", "bitmap"):
        (q / sub).mkdir(parents=True, exist_ok=True)
    (q / "categories.txt").write_text("\n".join(classes) + "\n")
    key = 1000
    for ci, c in enumerate(classes):
        with open(q / "raw" / f"{c}.ndjson", "w") as fr, open(q / "simplified" / f"{c}.ndjson", "w") as fs:
            for i in range(per_class):
                key += 1
                raw = random_raw(rng, int(rng.integers(1, 5)))
                rec = {"word": c, "countrycode": "XX", "timestamp": "2017-01-01 00:00:00 UTC",
                       "recognized": bool(i % 2), "key_id": str(key), "drawing": raw}
                fr.write(json.dumps(rec) + "\n")
                if i < per_class // 2:
                    fs.write(json.dumps({**rec, "drawing": simplify_drawing(raw)}) + "\n")
                else:
                    fs.write("\n")  # blank lines are skipped
        if ci == 0:
            arrs = np.empty(per_class, dtype=object)
            for i in range(per_class):
                n = int(rng.integers(3, 20))
                a = rng.integers(-30, 30, (n, 3)).astype(np.int16)
                a[:, 2] = (rng.random(n) < 0.2)
                a[-1, 2] = 1
                arrs[i] = a
            np.savez(q / "sketchrnn" / f"{c}.npz", train=arrs, valid=arrs[:5], test=arrs[:3])
            np.save(q / "bitmap" / f"{c}.npy", rng.integers(0, 256, (per_class * 2, 784)).astype(np.uint8))
    return root
