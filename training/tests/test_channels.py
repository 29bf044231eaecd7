"""Raster inputs: the stroke-order plane, bitmaps in a multi-channel model, warm starts, other sizes."""
import json

import numpy as np
import torch

from sketchwise_data import raster
from sketchwise_training import export as ex
from sketchwise_training import pipeline as pl
from sketchwise_training.models import RasterCNN, warm_start

THREE_STROKES = [[[0, 100], [0, 0]], [[0, 100], [60, 60]], [[0, 100], [120, 120]]]


def test_order_plane_fades_later_strokes():
    ink, order = raster.render_channels(THREE_STROKES, 28, ("ink", "order"))
    np.testing.assert_array_equal(ink, raster.render(THREE_STROKES, 28))
    rows = [int(r) for r in np.flatnonzero(ink.max(axis=1) == ink.max())]
    top, bottom = rows[0], rows[-1]
    assert order[top].max() == ink[top].max(), "the first stroke is opaque"
    assert abs(int(order[bottom].max()) - 0.25 * int(ink[bottom].max())) <= 2, "the last one at opacity 0.25"
    one = THREE_STROKES[:1]
    np.testing.assert_array_equal(raster.render(one, 28, "order"), raster.render(one, 28))
    assert raster.order_opacity(1, 3) == 1.0 - 0.75 * 1 / 2


def test_bitmaps_have_an_empty_order_plane():
    bitmaps = np.arange(2 * 784, dtype=np.uint8).reshape(2, 784)
    x = pl.bitmap_inputs(bitmaps, ("ink", "order"))
    assert x.shape == (2, 2, 28, 28)
    torch.testing.assert_close(x[:, 0], pl.bitmap_inputs(bitmaps)[:, 0])
    assert float(x[:, 1].abs().max()) == 0.0


def test_two_channel_export_and_warm_start(tmp_path):
    torch.manual_seed(0)
    parent = RasterCNN(5, widths=(4, 6, 8), fc=16)
    torch.save({"model": parent.state_dict()}, tmp_path / "ckpt.pt")
    child = RasterCNN(5, widths=(4, 6, 8), fc=16, channels=("ink", "order"))
    warm_start(child, tmp_path / "ckpt.pt")
    parent.eval()
    child.eval()
    x = torch.rand(3, 2, 28, 28)
    with torch.no_grad():
        torch.testing.assert_close(child(x)[0], parent(x[:, :1])[0], msg="added channels start at zero")
    ex.export_model(child, tmp_path, "order", [f"c{i}" for i in range(5)], "raster", "test")
    spec = json.loads((tmp_path / "order.json").read_text())
    assert spec["input"]["shape"] == [2, 28, 28] and spec["input"]["raster"]["channels"] == ["ink", "order"]
    assert spec["layers"][0]["params"]["inChannels"] == 2
    with torch.no_grad():
        expected = torch.log_softmax(child(x[:1])[0], 1)[0].numpy()
    np.testing.assert_allclose(ex.SpecModel(tmp_path, "order").log_probs(x[0].numpy()), expected, atol=1e-5)


def test_other_sizes_export_their_side_and_take_no_bitmaps(tmp_path):
    model = RasterCNN(5, widths=(4, 6, 8), fc=16, size=36).eval()
    x = pl.raster_inputs([THREE_STROKES], size=36)
    assert x.shape == (1, 1, 36, 36)
    assert model(x)[0].shape == (1, 5)
    ex.export_model(model, tmp_path, "big", [f"c{i}" for i in range(5)], "raster", "test")
    spec_model = ex.SpecModel(tmp_path, "big")
    assert spec_model.input["shape"] == [1, 36, 36] and spec_model.raster_size == 36
    np.testing.assert_allclose(spec_model.run(x[0].numpy())["logits"], model(x)[0][0].detach().numpy(), atol=1e-5)
    assert pl.reads_bitmaps(["ink"], 28) and not pl.reads_bitmaps(["ink"], 36) and not pl.reads_bitmaps(["ink", "order"], 28)
