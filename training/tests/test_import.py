"""The importer of published Keras models (TensorFlow.js layers and Keras HDF5)."""
import json

import numpy as np
import pytest

from sketchwise_data import quickdraw as qd
from sketchwise_training import export as ex
from sketchwise_training import import_model as im
from sketchwise_training import keras_reference as kr
from sketchwise_training.models import load_exported

CATEGORIES = ["cat", "dog", "traffic light", "The Eiffel Tower"]
LABELS = ["dog", "The_Eiffel_Tower", "traffic_light", "unicorn", "Cat"]  # own order, one unknown class


def _layer(kind, **cfg):
    return {"class_name": kind, "config": cfg}


def write_tfjs(folder, rng, layers=None, quantize=False):
    """A small Keras Sequential model in the TF.js layers format, with random weights."""
    layers = layers or [
        _layer("Conv2D", name="c1", filters=4, kernel_size=[3, 3], strides=[1, 1], padding="same",
               activation="relu", batch_input_shape=[None, 12, 12, 1], data_format="channels_last", use_bias=True),
        _layer("MaxPooling2D", name="p1", pool_size=[2, 2], strides=[2, 2], padding="valid", data_format="channels_last"),
        _layer("Conv2D", name="c2", filters=3, kernel_size=[3, 3], strides=[1, 1], padding="valid",
               activation="tanh", data_format="channels_last", use_bias=True),
        _layer("Dropout", name="d", rate=0.1),
        _layer("Flatten", name="f", data_format="channels_last"),
        _layer("Dense", name="h", units=7, activation="tanh", use_bias=True),
        _layer("Dense", name="out", units=5, activation="softmax", use_bias=True),
    ]
    shapes = {"c1/kernel": [3, 3, 1, 4], "c1/bias": [4], "c2/kernel": [3, 3, 4, 3], "c2/bias": [3],
              "h/kernel": [48, 7], "h/bias": [7], "out/kernel": [7, 5], "out/bias": [5]}
    folder.mkdir(parents=True, exist_ok=True)
    weights = [{"name": k, "shape": v, "dtype": "float32"} for k, v in shapes.items()]
    if quantize:
        weights[0]["quantization"] = {"dtype": "uint8", "scale": 0.1, "min": 0}
    blob = b"".join(rng.normal(0, 0.5, v).astype("<f4").tobytes() for v in shapes.values())
    (folder / "group1-shard1of1.bin").write_bytes(blob)
    doc = {"format": "layers-model", "modelTopology": {"model_config": {"class_name": "Sequential", "config": {"layers": layers}}},
           "weightsManifest": [{"paths": ["group1-shard1of1.bin"], "weights": weights}]}
    (folder / "model.json").write_text(json.dumps(doc))
    (folder / "class_names.txt").write_text("\n".join(LABELS) + "\n")
    return folder


@pytest.fixture()
def categories(tmp_path):
    p = tmp_path / "categories.txt"
    p.write_text("\n".join(CATEGORIES) + "\n")
    return p


def test_import_answers_like_the_original_model(tmp_path, categories):
    rng = np.random.default_rng(3)
    src = write_tfjs(tmp_path / "tfjs", rng)
    im.import_model(src, "tiny", tmp_path / "out", categories=categories)
    spec = json.loads((tmp_path / "out" / "tiny.json").read_text())
    # known classes in the official order, the unknown one after them, marked
    assert spec["labels"] == ["cat", "dog", "traffic light", "The Eiffel Tower", "unicorn"]
    assert spec["source"]["unknownLabels"] == ["unicorn"]
    assert [l["type"] for l in spec["layers"]] == ["conv2d", "relu", "maxpool2d", "conv2d", "tanh", "flatten",
                                                   "dense", "tanh", "dense"]
    config, weights = im.read_source(src)
    model = ex.SpecModel(tmp_path / "out", "tiny")
    batched = load_exported(tmp_path / "out", "tiny")
    for _ in range(4):
        img = rng.random((12, 12, 1)).astype(np.float32)
        ref = kr.forward(config, weights, img)  # probabilities in the model's own label order
        ours = np.exp(model.log_probs(img.transpose(2, 0, 1)))
        by_name = dict(zip(spec["labels"], ours))
        for label, p in zip(LABELS, ref):
            name = {"The_Eiffel_Tower": "The Eiffel Tower", "traffic_light": "traffic light", "Cat": "cat"}.get(label, label)
            assert abs(by_name[name] - p) < 1e-5
        import torch
        logits, _ = batched(torch.from_numpy(img.transpose(2, 0, 1)[None]))
        assert np.allclose(torch.softmax(logits, 1)[0].numpy(), ours, atol=1e-5)


@pytest.mark.parametrize("bad, message", [
    (_layer("BatchNormalization", name="bn", axis=-1), "layer bn: BatchNormalization layers are not supported"),
    (_layer("Conv2D", name="even", filters=2, kernel_size=[2, 2], strides=[1, 1], padding="same", activation="relu",
            data_format="channels_last"), "layer even: 'same' padding with an even kernel"),
    (_layer("Dense", name="act", units=3, activation="selu"), "layer act: activation 'selu' is not supported"),
])
def test_unmappable_layers_are_refused_by_name(tmp_path, categories, bad, message):
    rng = np.random.default_rng(0)
    first = _layer("Conv2D", name="c1", filters=4, kernel_size=[3, 3], strides=[1, 1], padding="same",
                   activation="relu", batch_input_shape=[None, 12, 12, 1], data_format="channels_last", use_bias=True)
    layers = [first, bad] if bad["class_name"] != "Dense" else [first, _layer("Flatten", name="f"), bad]
    src = write_tfjs(tmp_path / "tfjs", rng, layers=layers)
    with pytest.raises(im.ConversionError, match=message):
        im.import_model(src, "bad", tmp_path / "out", categories=categories)
    assert not (tmp_path / "out" / "bad.json").exists()


def test_quantized_and_truncated_weights_are_refused(tmp_path, categories):
    rng = np.random.default_rng(1)
    src = write_tfjs(tmp_path / "q", rng, quantize=True)
    with pytest.raises(im.ConversionError, match="quantized"):
        im.import_model(src, "q", tmp_path / "out", categories=categories)
    src = write_tfjs(tmp_path / "t", rng)
    blob = (src / "group1-shard1of1.bin").read_bytes()
    (src / "group1-shard1of1.bin").write_bytes(blob[:-8])
    with pytest.raises(im.ConversionError, match="end before weight out/bias"):
        im.import_model(src, "t", tmp_path / "out", categories=categories)


@pytest.mark.skipif(not kr.SHARED_MODELS.exists(), reason=f"SKIPPED: public models not found at {kr.SHARED_MODELS}")
@pytest.mark.parametrize("name", sorted(kr.SOURCES))
def test_public_models_match_their_committed_fixtures(tmp_path, name):
    """The converted DoodleNet / Sketcher answer like the numpy reference on the original files."""
    fixture = json.loads((kr.ROOT / "Tests" / "SketchwiseNNTests" / "Fixtures" / "imported" / f"{name}.json").read_text())
    src = kr.SHARED_MODELS / kr.SOURCES[name]
    assert kr.source_sha256(src) == fixture["sourceSHA256"]
    im.import_model(src, name, tmp_path, categories=qd.DEFAULT_DATA / "quickdraw")
    model = ex.SpecModel(tmp_path, name)
    for case in fixture["cases"]:
        img = np.asarray(case["image"], np.float32).reshape(1, 28, 28) / np.float32(255.0)
        ours = np.exp(model.log_probs(img))
        original = list(case["probabilities"])
        order, names, _ = im.map_labels(original, qd.load_categories(qd.DEFAULT_DATA / "quickdraw"))
        assert names == model.labels
        for row, source_row in enumerate(order):
            assert abs(ours[row] - case["probabilities"][original[source_row]]) < 1e-4
