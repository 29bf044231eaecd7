"""Parity fixtures for the Swift runtime: synthetic inputs and PyTorch's outputs.

For each exported model (``raster-cnn``, ``stroke-rnn`` and further ensemble members) writes ``<name>.json`` in the fixture
directory (default ``Tests/SketchwiseNNTests/Fixtures/parity/``), and all cases once more in
``expected.safetensors`` (tensors ``<name>.input.<i>`` -- ``[channels, size, size]`` or ``[T, 3]`` --,
``<name>.logits.<i>``, ``<name>.embedding.<i>``, same order). The model files themselves are
``Models/<name>.{json,safetensors}`` (``weightsSHA256`` says which weights the outputs belong to)::

    {"model": "raster-cnn", "tolerance": 1e-4, "outputs": ["logits", "embedding"],
     "cases": [{"name": "...", "kind": "drawing" | "noise",
                "strokes": [[[x...], [y...]], ...] | null,   # drawings only, Google-simplified form
                "input": {"shape": [channels, size, size] | [T, 3], "data": [...]},   # row-major float32
                "logits": [...], "embedding": [...],
                "answer": [...]}]}   # log-probabilities averaged over the spec's views, renormalised

Every drawing is synthetic (random polylines, circles, zigzags, dots made here; no dataset
content). Drawings are integer 0..255 with the longer side 255, i.e. already in Google's
simplified form, so the app does not simplify them again; their inputs are made with
raster.py / sequence.py. Outputs come from the PyTorch modules loaded from the exported
safetensors, the stroke cases run as ONE zero-padded batch (what training does), and are
checked against export.SpecModel running each input unpadded.

    python3 -m sketchwise_training.fixtures [--models Models] [--out Tests/SketchwiseNNTests/Fixtures/parity]
"""
from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import torch

from sketchwise_data import raster, sequence

from . import REPO as ROOT
from . import export as ex
from . import pipeline as pl
from .models import load_exported
from .torch_version import warn_if_torch_differs


def _normalise(strokes):
    """Float strokes -> integer 0..255, min 0, longer side 255 (Google's simplified frame)."""
    xs = np.concatenate([s[0] for s in strokes])
    ys = np.concatenate([s[1] for s in strokes])
    ext = max(xs.max() - xs.min(), ys.max() - ys.min()) or 1.0
    f = 255.0 / ext
    return [[np.round((s[0] - xs.min()) * f).astype(int).tolist(), np.round((s[1] - ys.min()) * f).astype(int).tolist()]
            for s in strokes]


def synthetic_drawings(seed: int = 7):
    rng = np.random.default_rng(seed)
    out = []
    t = np.linspace(0, 2 * np.pi, 24)
    out.append(("circle", _normalise([[100 + 80 * np.cos(t), 120 + 60 * np.sin(t)]])))
    out.append(("house", _normalise([[np.array([0, 0, 100, 100, 0.0]), np.array([60, 160, 160, 60, 60.0])],
                                     [np.array([-5, 50, 105.0]), np.array([60, 0, 60.0])],
                                     [np.array([40, 40, 60, 60.0]), np.array([160, 110, 110, 160.0])]])))
    out.append(("zigzag", _normalise([[np.arange(9) * 20.0, np.array([0, 30] * 4 + [0], float)]])))
    strokes = []
    for _ in range(5):
        n = int(rng.integers(2, 9))
        strokes.append([rng.uniform(0, 300, n), rng.uniform(0, 200, n)])
    strokes.append([np.array([150.0]), np.array([100.0])])  # a dot
    out.append(("random-strokes", _normalise(strokes)))
    long = [[np.cumsum(rng.normal(0, 6, 90)), np.cumsum(rng.normal(0, 6, 90))] for _ in range(2)]
    out.append(("long-scribble", _normalise(long)))  # > 128 rows: cut to maxLength
    return out


def _view_answers(model, views, cases, raster_kind) -> np.ndarray:
    """What the runtime answers for each case: log-softmax over every view of the input (see
    export.mirror_input), averaged over the views and renormalised."""
    per_view = []
    for view in views:
        xs = [ex.mirror_input(c["x"]) if view == "mirrored" else c["x"] for c in cases]
        with torch.no_grad():
            if raster_kind:
                logits, _ = model(torch.from_numpy(np.stack(xs)))
            else:
                logits, _ = model(*pl.pad_rows(xs))
        per_view.append(ex.log_softmax_np(logits.numpy().astype(np.float64)))
    return ex.log_softmax_np(np.mean(per_view, axis=0))


def write_fixtures(models_dir: Path, out_dir: Path, seed: int = 7) -> list[Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed + 1)
    drawings = synthetic_drawings(seed)
    written = []
    st_tensors: dict = {}
    from .evaluate import member_names
    for name in member_names(Path(models_dir)):
        spec_model = ex.SpecModel(models_dir, name)
        model = load_exported(models_dir, name)
        raster_kind = spec_model.input["kind"] == "raster"
        channels = spec_model.raster_channels if raster_kind else []
        size = spec_model.raster_size if raster_kind else 0
        cases = []
        for cname, strokes in drawings:
            if raster_kind:
                x = raster.render_channels(strokes, size, channels).astype(np.float32) / np.float32(255.0)
            else:
                x = sequence.encode_rows(strokes, pl.MAX_LENGTH, pl.NORMALIZATION)
            cases.append({"name": cname, "kind": "drawing", "strokes": strokes, "x": x})
        if raster_kind:
            for k in range(2):
                cases.append({"name": f"noise-{k}", "kind": "noise", "strokes": None,
                              "x": rng.random((len(channels), size, size), dtype=np.float32)})
            cases.append({"name": "empty", "kind": "drawing", "strokes": [],
                          "x": np.zeros((len(channels), size, size), np.float32)})
            with torch.no_grad():
                logits, emb = model(torch.from_numpy(np.stack([c["x"] for c in cases])))
        else:
            for k, T in enumerate((1, 9, 128)):
                x = rng.normal(0, 0.1, (T, 3)).astype(np.float32)
                x[:, 2] = (rng.random(T) < 0.2).astype(np.float32)
                cases.append({"name": f"noise-{T}", "kind": "noise", "strokes": None, "x": x})
            cases.append({"name": "empty", "kind": "drawing", "strokes": [],
                          "x": sequence.encode_rows([], pl.MAX_LENGTH, pl.NORMALIZATION)})
            xpad, lengths = pl.pad_rows([c["x"] for c in cases])
            with torch.no_grad():
                logits, emb = model(xpad, lengths)
        answers = _view_answers(model, spec_model.input.get("views", ["original"]), cases, raster_kind)
        worst = 0.0
        for c, lo, em, answer in zip(cases, logits.numpy(), emb.numpy(), answers):
            ref = spec_model.run(c["x"])
            worst = max(worst, float(np.abs(ref["logits"] - lo).max()), float(np.abs(ref["embedding"] - em).max()))
            c["input"] = {"shape": list(c["x"].shape), "data": [float(v) for v in c["x"].ravel()]}
            c["logits"] = [float(v) for v in lo]
            c["embedding"] = [float(v) for v in em]
            c["answer"] = [float(v) for v in answer]
            del c["x"]
        if worst > 1e-4:
            raise AssertionError(f"{name}: padded PyTorch batch and unpadded spec run differ by {worst}")
        digest = hashlib.sha256((Path(models_dir) / f"{name}.safetensors").read_bytes()).hexdigest()
        for i, c in enumerate(cases):
            st_tensors[f"{name}.input.{i}"] = np.asarray(c["input"]["data"], np.float32).reshape(c["input"]["shape"])
            st_tensors[f"{name}.logits.{i}"] = np.asarray(c["logits"], np.float32)
            st_tensors[f"{name}.embedding.{i}"] = np.asarray(c["embedding"], np.float32)
        doc = {"model": name, "modelFiles": f"Models/{name}.json, Models/{name}.safetensors",
               "weightsSHA256": digest, "tolerance": 1e-4, "outputs": ["logits", "embedding"],
               "note": "synthetic inputs; outputs of the PyTorch model loaded from the exported safetensors "
                       f"(max |diff| vs an independent unpadded run: {worst:.2e})",
               "cases": cases}
        p = out_dir / f"{name}.json"
        p.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        written.append(p)
    if st_tensors:
        p = out_dir / "expected.safetensors"
        ex.write_safetensors(p, st_tensors, {"note": "<model>.input.<i> / .logits.<i> / .embedding.<i>, "
                                                     "same cases (same order) as <model>.json"})
        written.append(p)
    return written


def fixture_command(argv, doc, write, models, models_help, folder):
    """The command line of a fixture writer: `--models` (default `models`), `--out` (default
    Tests/SketchwiseNNTests/Fixtures/`folder`); calls `write(models, out)` and prints each file
    written with its size."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--models", type=Path, default=models, help=f"{models_help} (default {models})")
    out = ROOT / "Tests" / "SketchwiseNNTests" / "Fixtures" / folder
    ap.add_argument("--out", type=Path, default=out, help=f"the fixture folder (default {out.relative_to(ROOT)})")
    a = ap.parse_args(argv)
    warn_if_torch_differs()
    for p in write(a.models, a.out):
        print(p, p.stat().st_size)


def main(argv=None):
    fixture_command(argv, __doc__, write_fixtures, ROOT / "Models", "the exported models", "parity")


if __name__ == "__main__":
    main()
