"""sketchwise_training.embedding: the stroke-file reader against Swift's, the symmetries, the held-out
split, and a smoke run (with a validation alphabet) whose export the fixture writer reads back and
``combine`` extends."""
import json
import subprocess

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import TRAINING, command, needs_data
from sketchwise_training import embedding as E


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
    r = subprocess.run(command("embedding", "train", "--smoke", "--out", out,
                               "--unlabelled", "omniglot-unlabelled-stroke3.npz", "--validation-alphabets", "Korean",
                               "--qd-bitmaps", "20"),
                       cwd=TRAINING, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    spec = json.loads((out / "sketch-embedding.json").read_text())
    assert spec["outputs"] == {"embedding": "embedding"} and spec["labels"] == []
    assert spec["layers"][-1]["type"] == "l2normalize"
    assert "Balinese/character01" in spec["training"]["labels"], "the trained labels are listed for fewshot --unseen"
    assert "pseudo-classes" in spec["training"]["notes"] and "dropped as possible copies" in r.stdout
    assert "of Google's bitmaps of" in spec["training"]["notes"]
    assert not any(l.startswith("unlabelled/") for l in spec["training"]["labels"]), "pseudo-classes are no labels"
    assert spec["input"]["embeddingRotations"] == [0, -10, 10]
    assert spec["training"]["validationAlphabets"] == ["Korean"] and "Korean/character01" not in spec["training"]["labels"]
    assert "validation_20way_1shot" in spec["training"]["results"] and "omniglot_20way_1shot" in spec["training"]["results"]
    assert "dropped as possible copies of evaluation or validation drawings" in r.stdout
    r = subprocess.run(command("embedding", "fixture", "--models", out, tmp_path / "fixture"),
                       cwd=TRAINING, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    fixture = json.loads((tmp_path / "fixture" / "sketch-embedding.json").read_text())
    for case in fixture["cases"]:
        assert abs(np.linalg.norm(case["embedding"]) - 1) < 1e-5
        if case["kind"] == "drawing":
            assert abs(np.linalg.norm(case["sketchEmbedding"]) - 1) < 1e-5
    # a member added to an exported ensemble: the ensemble gives its own members
    model = E.load_embedding(out, "sketch-embedding")
    E.export(E.EmbeddingEnsemble([model, model]), out / "pair", "sketch-embedding", spec["training"]["labels"], "a pair", {},
             members=[{"notes": "first", "results": {}}, {"notes": "second", "results": {}}])
    r = subprocess.run(command("embedding", "combine", out / "pair" / "sketch-embedding", out / "sketch-embedding",
                               "--episodes", "20", "--embedding-rotations", "0", "--out", out / "three"),
                       cwd=TRAINING, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    three = json.loads((out / "three" / "sketch-embedding.json").read_text())
    assert [m["notes"] for m in three["training"]["members"]] == ["first", "second", spec["training"]["notes"]]
    assert "validationAlphabets" not in three["training"], "only alphabets that every member kept out"
    assert three["layers"][-2] == {"name": "joined", "type": "concat", "inputs": ["m0_embedding", "m1_embedding", "m2_embedding"]}
    joined = E.load_embedding(out / "three", "sketch-embedding")
    x = E.render([[[np.array([10.0, 200.0]), np.array([30.0, 220.0])]]])
    alone = model(x)
    assert torch.allclose(joined(x), F.normalize(torch.cat([alone] * 3, 1), dim=1), atol=1e-6)


def test_a_batch_of_strokes_and_bitmaps_keeps_its_order():
    line = [[np.array([10.0, 240.0]), np.array([128.0, 128.0])]]
    blank, full = np.zeros(784, np.uint8), np.full(784, 255, np.uint8)
    batch = [(0, blank, E.BITMAP, None), (1, line, 0, E.QD_AUG), (2, full, E.BITMAP, None)]
    images = E.training_images(batch, np.random.default_rng(0), torch.Generator().manual_seed(0), 7.0)
    assert images.shape == (3, 1, 28, 28)
    assert images[0].sum() == 0, "a blank bitmap stays blank under any affine"
    assert 5 < images[1].sum() < 100, "the strokes are rendered: one line"
    assert images[2].sum() > 0.8 * 784, "a full bitmap stays mostly ink"


def test_pooled_blocks_join_the_embedding_and_survive_export(tmp_path):
    torch.manual_seed(0)
    model = E.SketchEmbedding((8, 16, 16, 32), dim=12).eval()
    x = torch.rand(3, 1, 28, 28)
    plain = model(x)
    assert torch.allclose(plain, model.project(x))
    model.pool_blocks([3])
    assert model.dim == 12 + 16
    with torch.no_grad():
        block3 = model._blocks(x)[2]
        expected = F.normalize(torch.cat([plain, F.normalize(block3.amax((2, 3)), dim=1)], 1), dim=1)
        assert torch.allclose(model(x), expected, atol=1e-6)
    ensemble = E.EmbeddingEnsemble([model, E.SketchEmbedding((8, 8, 16, 16), dim=12, pooled_blocks=(2, 3)).eval()])
    layers = {l["name"]: l for l in ensemble.spec_layers()}
    assert layers["m1_blockmax2"]["inputs"] == ["m1_pool2"] and layers["m1_blockmax2"]["params"] == {"kernel": 7, "stride": 7}
    assert layers["m0_joined"]["inputs"] == ["m0_projected", "m0_blockmax3_unit"]
    E.export(ensemble, tmp_path, "sketch-embedding", ["a"], "two members", {},
             members=[{"notes": "first", "results": {}}, {"notes": "second", "results": {}}])
    loaded = E.load_embedding(tmp_path, "sketch-embedding")
    assert [m.pooled_blocks for m in loaded.members] == [(3,), (2, 3)]
    with torch.no_grad():
        assert torch.allclose(loaded(x), ensemble(x), atol=1e-6)
    with pytest.raises(ValueError, match=r"1\.\.3"):  # the last block is the projection's input
        model.pool_blocks([4])


def test_training_drawings_render_alike_on_cairo_and_as_tensor_operations():
    """The renderer a GPU run uses draws the same augmented drawings as cairo does, within the
    tensor rasteriser's tolerance (tests/test_tensor_raster.py), bitmaps untouched by the choice."""
    rng = np.random.default_rng(5)
    def wobbly(n):  # a hand-drawn-looking stroke of n points in the 0..255 frame
        return [np.cumsum(rng.normal(0, 12, n)) + 128, np.cumsum(rng.normal(0, 12, n)) + 128]
    items = [(0, [wobbly(30), wobbly(12)], k % 8, E.QD_AUG if k % 2 else E.OMNIGLOT_AUG) for k in range(12)]
    items.append((1, rng.integers(0, 256, 784, dtype=np.uint8), E.BITMAP, None))
    images = {}
    for renderer in E.RENDERERS:
        images[renderer] = E.training_images(items, np.random.default_rng(9), torch.Generator().manual_seed(9), 7.0, renderer)
    cairo, tensor = images["cairo"][:12].flatten(), images["tensor"][:12].flatten()
    assert torch.corrcoef(torch.stack([cairo, tensor]))[0, 1] > 0.99
    assert (cairo - tensor).abs().mean() < 0.01
    assert torch.equal(images["cairo"][12], images["tensor"][12])
