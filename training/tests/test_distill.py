"""Distillation: exported models rebuilt as a batched teacher, and the softened loss."""
import json

import numpy as np
import pytest
import torch

from sketchwise_training import distill
from sketchwise_training import export as ex
from sketchwise_training import pipeline as pl
from sketchwise_training.models import RasterCNN, StrokeRNN, load_exported

LABELS = [f"c{i}" for i in range(5)]
DRAWINGS = [
    [[[0, 100, 200], [0, 90, 10]]],
    [[[10, 250], [10, 250]], [[250, 10], [10, 250]]],
    [[[0, 0, 255, 255, 0], [0, 255, 255, 0, 0]], [[128], [128]]],
]


def _export_members(tmp_path):
    torch.manual_seed(0)
    members = {
        "ink": RasterCNN(5, widths=(4, 6, 8), fc=16),
        "order": RasterCNN(5, widths=(4, 6, 8), fc=16, channels=("ink", "order")),
        "rnn": StrokeRNN(5, convs=((6, 3),), hidden=4, lstm_layers=1),
    }
    for name, model in members.items():
        kind = "strokes" if name == "rnn" else "raster"
        config = ({"convs": [[6, 3]], "hidden": 4, "lstm_layers": 1} if kind == "strokes" else
                  {"widths": [4, 6, 8], "fc": 16, "channels": list(model.channels)})
        ex.export_model(model.eval(), tmp_path, name, LABELS, kind, "test", extra_training={"config": config})
    (tmp_path / "ensemble.json").write_text(json.dumps({"members": ["ink", "order", "rnn"], "weights": [0.2, 0.3, 0.5]}))


def _batch(channels):
    images = pl.raster_inputs(DRAWINGS, channels)
    rows, lengths = pl.pad_rows(pl.sequence_inputs(DRAWINGS))
    return images, rows, lengths


def test_teacher_answers_like_the_exported_files(tmp_path):
    _export_members(tmp_path)
    teacher = distill.Teacher(tmp_path, "ensemble")
    assert teacher.raster_channels == ["ink", "order"]
    got = teacher.log_probs(*_batch(teacher.raster_channels)).numpy()
    files = {n: ex.SpecModel(tmp_path, n) for n in ("ink", "order", "rnn")}
    for i, drawing in enumerate(DRAWINGS):
        answers = {n: ex.log_softmax_np(m.run(pl.raster_inputs([drawing], m.raster_channels)[0].numpy())["logits"])
                   if m.input["kind"] == "raster" else
                   ex.log_softmax_np(m.run(pl.sequence_inputs([drawing])[0])["logits"]) for n, m in files.items()}
        want = ex.log_softmax_np(0.2 * answers["ink"] + 0.3 * answers["order"] + 0.5 * answers["rnn"])
        np.testing.assert_allclose(got[i], want, atol=1e-5)


def test_teacher_from_a_name_list_weighs_equally(tmp_path):
    _export_members(tmp_path)
    teacher = distill.Teacher(tmp_path, "ink,rnn")
    assert [round(w, 6) for _, _, w in teacher.members] == [0.5, 0.5]
    assert teacher.raster_channels == ["ink"]


def test_raster_teachers_of_another_size_are_refused(tmp_path):
    ex.export_model(RasterCNN(5, widths=(4, 6, 8), fc=16, size=36).eval(), tmp_path, "big", LABELS, "raster", "test",
                    extra_training={"config": {"widths": [4, 6, 8], "fc": 16, "size": 36}})
    with pytest.raises(ValueError, match="must read 28x28"):
        distill.Teacher(tmp_path, "big")


def test_mismatched_weights_are_refused(tmp_path):
    _export_members(tmp_path)
    spec = json.loads((tmp_path / "ink.json").read_text())
    spec["training"]["config"]["fc"] = 32
    (tmp_path / "ink.json").write_text(json.dumps(spec))
    with pytest.raises(Exception, match="size mismatch|do not match"):
        load_exported(tmp_path, "ink")


def test_distillation_loss():
    teacher = torch.log_softmax(torch.tensor([[2.0, 0.5, -1.0]]), 1)
    assert float(distill.distillation_loss(teacher.clone(), teacher, 2.0)) == pytest.approx(0.0, abs=1e-6)
    far = distill.distillation_loss(torch.tensor([[-1.0, 0.5, 2.0]]), teacher, 2.0)
    near = distill.distillation_loss(torch.tensor([[1.5, 0.5, -0.5]]), teacher, 2.0)
    assert float(far) > float(near) > 0


def test_teacher_weights_from_the_name_list_and_labels_must_agree(tmp_path):
    _export_members(tmp_path)
    teacher = distill.Teacher(tmp_path, "ink:3,rnn:1")
    assert [round(w, 6) for _, _, w in teacher.members] == [0.75, 0.25]
    assert teacher.labels == LABELS
    spec = json.loads((tmp_path / "rnn.json").read_text())
    spec["labels"] = list(reversed(LABELS))
    (tmp_path / "rnn.json").write_text(json.dumps(spec))
    with pytest.raises(ValueError, match="same labels"):
        distill.Teacher(tmp_path, "ink,rnn")


def test_per_drawing_distillation_loss_averages_to_the_batch_loss():
    student = torch.tensor([[1.0, 0.0, -1.0], [0.0, 2.0, 0.5]])
    teacher = torch.log_softmax(torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]]), 1)
    each = distill.distillation_loss(student, teacher, 3.0, reduction="none")
    assert each.shape == (2,)
    assert float(each.mean()) == pytest.approx(float(distill.distillation_loss(student, teacher, 3.0)), rel=1e-6)
