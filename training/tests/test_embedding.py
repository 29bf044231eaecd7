"""training/embedding.py: the stroke-file reader against Swift's, the symmetries, the held-out
split, and a smoke run whose export the fixture writer reads back."""
import json
import subprocess
import sys

import numpy as np

from conftest import TRAINING, needs_data

import embedding as E


def test_omniglot_text_is_read_as_swift_reads_it():
    strokes = E.parse_omniglot("START\n1,2,10\n3,-4,20\nBREAK\n5,6,30\nBREAK\n")
    assert [s[0].tolist() for s in strokes] == [[1, 3], [5]]
    assert [s[1].tolist() for s in strokes] == [[-2, 4], [-6]], "y points down, as OmniglotStrokes.parse flips it"
    assert strokes[0][2].tolist() == [10, 20]


def test_the_eight_symmetries_are_distinct_and_four_quarter_turns_come_back():
    stroke = [[np.array([0.0, 100.0, 200.0]), np.array([0.0, 50.0, 255.0])]]
    views = [E.dihedral(stroke, k) for k in range(8)]
    assert len({tuple(np.round(np.concatenate(v[0]), 6)) for v in views}) == 8
    back = stroke
    for _ in range(4):
        back = E.dihedral(back, 1)
    assert np.allclose(back[0][0], stroke[0][0]) and np.allclose(back[0][1], stroke[0][1])


def test_the_held_out_classes_are_a_fixed_fifth():
    from sketchwise_data import quickdraw as qd
    names = [f"class-{i}" for i in range(2000)]
    share = sum(E.qd_held_out(n) for n in names) / len(names)
    assert 0.17 < share < 0.23
    assert [E.qd_held_out(n) for n in names[:50]] == [qd.hash_fraction(f"embedding-held-out/{n}") < 0.2 for n in names[:50]]


@needs_data
def test_smoke_run_exports_an_embedding_model_and_its_fixture(tmp_path):
    out = tmp_path / "models"
    r = subprocess.run([sys.executable, str(TRAINING / "embedding.py"), "--smoke", "--out", str(out),
                        "--unlabelled", "omniglot-unlabelled-stroke3.npz"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    spec = json.loads((out / "sketch-embedding.json").read_text())
    assert spec["outputs"] == {"embedding": "embedding"} and spec["labels"] == []
    assert spec["layers"][-1]["type"] == "l2normalize"
    assert "Balinese/character01" in spec["training"]["labels"], "the trained labels are listed for fewshot --unseen"
    assert "pseudo-classes" in spec["training"]["notes"] and "dropped as possible copies" in r.stdout
    assert not any(l.startswith("unlabelled/") for l in spec["training"]["labels"]), "pseudo-classes are no labels"
    assert spec["input"]["embeddingRotations"] == [0, -10, 10]
    r = subprocess.run([sys.executable, str(TRAINING / "embedding.py"), "--out", str(out), "--fixture", str(tmp_path / "fixture")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    fixture = json.loads((tmp_path / "fixture" / "sketch-embedding.json").read_text())
    for case in fixture["cases"]:
        assert abs(np.linalg.norm(case["embedding"]) - 1) < 1e-5
        if case["kind"] == "drawing":
            assert abs(np.linalg.norm(case["sketchEmbedding"]) - 1) < 1e-5
