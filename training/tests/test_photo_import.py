"""The EfficientNet-Lite importer: reading .pth files without torch, mapping, and parity."""
import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from sketchwise_training import efficientnet_import as eff
from sketchwise_training import export as ex
from sketchwise_training import import_model as im
from sketchwise_training import torch_pickle as tp

FIXTURES = Path(__file__).resolve().parents[2] / "Tests/SketchwiseNNTests/Fixtures/photo"
ARCHITECTURE = eff.Architecture(depth=0.5, image_size=40)  # as training/tools/make_photo_fixtures.py


def test_both_torch_save_layouts_read_like_torch_load(tmp_path):
    torch = pytest.importorskip("torch")
    state = {"a.weight": torch.randn(4, 3, 2, 2), "a.bias": torch.arange(4, dtype=torch.float32),
             "t": torch.randn(5, 3).t(), "n": torch.tensor(7), "h": torch.randn(6, dtype=torch.float64)[1::2]}
    for zipped in (True, False):
        path = tmp_path / f"state-{zipped}.pth"
        torch.save(state, path, _use_new_zipfile_serialization=zipped)
        assert zipfile.is_zipfile(path) == zipped
        ours = tp.load_state_dict(path)
        assert list(ours) == list(state)
        for name, t in state.items():
            assert ours[name].dtype == t.numpy().dtype and np.array_equal(ours[name], t.numpy()), name


class _Evil:
    def __reduce__(self):
        import os
        return os.system, ("echo pwned",)


def test_a_pickle_asking_for_other_globals_is_refused(tmp_path):
    path = tmp_path / "evil.pth"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({"w": _Evil()}, protocol=2))
    with pytest.raises(tp.UnsafePickle, match="refusing global (posix|os).system"):
        tp.load_state_dict(path)
    legacy = tmp_path / "evil-legacy.pth"
    buffer = io.BytesIO()
    for obj in (tp.LEGACY_MAGIC, tp.LEGACY_PROTOCOL, {"little_endian": True}):
        pickle.dump(obj, buffer, protocol=2)
    pickle.dump(_Evil(), buffer, protocol=2)
    legacy.write_bytes(buffer.getvalue())
    with pytest.raises(tp.UnsafePickle):
        tp.load_state_dict(legacy)
    (tmp_path / "junk.pth").write_bytes(b"not a pickle at all")
    with pytest.raises(ValueError, match="neither a zip nor a legacy torch.save file"):
        tp.load_state_dict(tmp_path / "junk.pth")


def test_same_padding_is_tensorflows():
    assert eff.same_padding(224, 3, 2) == (0, 1, 112)
    assert eff.same_padding(56, 5, 2) == (1, 2, 28)
    assert eff.same_padding(5, 3, 2) == (1, 1, 3)
    assert eff.same_padding(14, 5, 1) == (2, 2, 14)
    assert eff.same_padding(7, 1, 1) == (0, 0, 7)


def test_lite0_has_sixteen_blocks_in_seven_stages():
    table = eff.VARIANTS["efficientnet-lite0"].block_table()
    assert [k for k, _, _ in table] == [3, 3, 3, 5, 5, 3, 3, 3, 5, 5, 5, 5, 5, 5, 5, 3]
    assert [s for _, s, _ in table] == [1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1]
    assert sum(r for _, _, r in table) == 9


def test_the_tiny_fixture_imports_to_the_committed_files_and_answers_like_pytorch(tmp_path):
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps([f"class {i}" for i in range(10)]))
    im.import_pytorch(FIXTURES / "tiny.pth", "tiny", tmp_path, labels, ARCHITECTURE, package="(test fixture)",
                      licence="random weights, no licence needed", description="tiny EfficientNet-Lite, random weights")
    committed = json.loads((FIXTURES / "tiny.json").read_text())
    ours = json.loads((tmp_path / "tiny.json").read_text())
    assert ours == committed
    assert (tmp_path / "tiny.safetensors").read_bytes() == (FIXTURES / "tiny.safetensors").read_bytes()
    types = {layer["type"] for layer in ours["layers"]}
    assert {"conv2d", "depthwise_conv2d", "batchnorm", "relu6", "add", "globalavgpool2d", "dense"} == types
    expected, _ = ex.read_safetensors(FIXTURES / "expected.safetensors")
    model = ex.SpecModel(tmp_path, "tiny")
    for i in range(3):
        assert np.abs(model.run(expected[f"tiny.input.{i}"])["logits"] - expected[f"tiny.logits.{i}"]).max() < 1e-5


def test_the_tiny_fixture_is_the_packages_model():
    torch = pytest.importorskip("torch")
    pytest.importorskip("efficientnet_lite_pytorch")
    from make_photo_fixtures import tiny_model  # training/tools/, on the tests' path

    model = tiny_model()
    model.load_state_dict(torch.load(FIXTURES / "tiny.pth"))
    expected, _ = ex.read_safetensors(FIXTURES / "expected.safetensors")
    for i in range(3):
        with torch.no_grad():
            logits = model(torch.from_numpy(expected[f"tiny.input.{i}"])[None])[0].numpy()
        assert np.abs(logits - expected[f"tiny.logits.{i}"]).max() < 1e-5


def test_mismatched_state_dicts_are_refused(tmp_path):
    state = tp.load_state_dict(FIXTURES / "tiny.pth")
    with pytest.raises(eff.ConversionError, match="10 blocks, the architecture 16"):
        eff.convert(state, eff.VARIANTS["efficientnet-lite0"])
    with pytest.raises(eff.ConversionError, match="squeeze-excite"):
        eff.convert({**state, "_blocks.0._se_reduce.weight": np.zeros((2, 8, 1, 1), np.float32)}, ARCHITECTURE)
    with pytest.raises(eff.ConversionError, match="does not use: extra"):
        eff.convert({**state, "extra": np.zeros(1, np.float32)}, ARCHITECTURE)
    labels = tmp_path / "labels.txt"
    labels.write_text("a\nb\n")
    with pytest.raises(eff.ConversionError, match="2 labels for 10 outputs"):
        im.import_pytorch(FIXTURES / "tiny.pth", "tiny", tmp_path, labels, ARCHITECTURE)


def test_repeated_labels_are_made_unique(tmp_path):
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps(["missile", "cat", "missile", "missile"]))
    assert im.read_labels(labels) == (["missile", "cat", "missile (2)", "missile (3)"], ["missile (2)", "missile (3)"])
