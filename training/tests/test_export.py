import json

import numpy as np
import torch

from sketchwise_training import export as ex
from sketchwise_training import pipeline as pl
from sketchwise_training.models import RasterCNN, StrokeRNN


def _randomise_bn(model, seed=0):
    g = torch.Generator().manual_seed(seed)
    for name, buf in model.named_buffers():
        if name.endswith("running_mean"):
            buf.copy_(torch.randn(buf.shape, generator=g) * 0.1)
        elif name.endswith("running_var"):
            buf.copy_(torch.rand(buf.shape, generator=g) + 0.5)


def test_safetensors_roundtrip(tmp_path):
    t = {"a.weight": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(5, np.float32)}
    ex.write_safetensors(tmp_path / "x.safetensors", t, {"k": "v"})
    raw = (tmp_path / "x.safetensors").read_bytes()
    n = int.from_bytes(raw[:8], "little")
    hdr = json.loads(raw[8:8 + n])
    assert hdr["a.weight"]["dtype"] == "F32" and hdr["__metadata__"] == {"k": "v"}
    back, meta = ex.read_safetensors(tmp_path / "x.safetensors")
    np.testing.assert_array_equal(back["a.weight"], t["a.weight"])


def test_raster_export_parity(tmp_path):
    torch.manual_seed(0)
    m = RasterCNN(12)
    _randomise_bn(m)
    m.eval()
    labels = [f"c{i}" for i in range(12)]
    ex.export_model(m, tmp_path, "raster-cnn", labels, "raster", "test")
    spec = json.loads((tmp_path / "raster-cnn.json").read_text())
    assert spec["outputs"] == {"logits": "fc2", "embedding": "embedding"} and spec["labels"] == labels
    sm = ex.SpecModel(tmp_path, "raster-cnn")
    x = torch.rand(3, 1, 28, 28)
    with torch.no_grad():
        lo, em = m(x)
    for k in range(3):
        r = sm.run(x[k].numpy())
        np.testing.assert_allclose(r["logits"], lo[k].numpy(), atol=1e-4)
        np.testing.assert_allclose(r["embedding"], em[k].numpy(), atol=1e-5)
    assert ex.count_macs(spec) == m.macs()


def test_stroke_padded_batch_equals_unpadded_run(tmp_path):
    torch.manual_seed(1)
    m = StrokeRNN(7, hidden=16, lstm_layers=2)
    # train-mode step so masked batch-norm statistics move, then evaluate
    x, lengths = pl.pad_rows([np.random.default_rng(i).normal(size=(n, 3)).astype(np.float32) for i, n in enumerate([5, 1, 17])])
    m.train()
    m(x, lengths)
    _randomise_bn(m, 3)
    m.eval()
    ex.export_model(m, tmp_path, "stroke-rnn", [str(i) for i in range(7)], "strokes", "test")
    sm = ex.SpecModel(tmp_path, "stroke-rnn")
    with torch.no_grad():
        lo, em = m(x, lengths)
    for k, n in enumerate(lengths.tolist()):
        r = sm.run(x[k, :n].numpy())
        np.testing.assert_allclose(r["logits"], lo[k].numpy(), atol=1e-4)
        np.testing.assert_allclose(r["embedding"], em[k].numpy(), atol=1e-5)
    # the fused LSTM path of the interpreter equals the step-by-step reference
    layer = next(l for l in sm.spec["layers"] if l["type"] == "lstm")
    seq = torch.randn(9, layer["params"]["inputSize"])
    with torch.no_grad():
        np.testing.assert_allclose(sm._lstm(layer, seq[None])[0].numpy(), sm.lstm_reference(layer, seq).numpy(), atol=1e-5)


def test_masked_batchnorm_ignores_padding():
    from sketchwise_training.models import MaskedBatchNorm1d
    bn = MaskedBatchNorm1d(2)
    x = torch.randn(2, 2, 6)
    mask = torch.tensor([[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1.0]])[:, None, :]
    y1 = bn(x, mask)
    x2 = x.clone()
    x2[0, :, 3:] = 1000.0  # garbage in padding
    bn2 = MaskedBatchNorm1d(2)
    y2 = bn2(x2, mask)
    torch.testing.assert_close(y1 * mask, y2 * mask)
    torch.testing.assert_close(bn.running_mean, bn2.running_mean)


def test_views_average_the_mirror_image(tmp_path):
    torch.manual_seed(1)
    m = RasterCNN(12)
    _randomise_bn(m)
    m.eval()
    ex.export_model(m, tmp_path, "raster-cnn", [f"c{i}" for i in range(12)], "raster", "test",
                    views=("original", "mirrored"))
    sm = ex.SpecModel(tmp_path, "raster-cnn")
    assert sm.input["views"] == ["original", "mirrored"]
    x = np.random.default_rng(0).random((1, 28, 28), dtype=np.float32)
    np.testing.assert_array_equal(ex.mirror_input(x)[0, 3], x[0, 3, ::-1])
    lp = sm.log_probs(x)
    np.testing.assert_allclose(lp, sm.log_probs(ex.mirror_input(x)), atol=1e-6)
    assert abs(np.exp(lp).sum() - 1) < 1e-5
    one = ex.log_softmax_np(sm.run(x)["logits"])
    assert np.abs(lp - one).max() > 1e-4  # the mirror image does count
    rows = np.array([[0.1, -0.2, 0], [0.3, 0.1, 1]], np.float32)
    np.testing.assert_array_equal(ex.mirror_input(rows), rows * np.array([-1, 1, 1], np.float32))


def test_ensemble_weights_favour_the_better_member():
    from sketchwise_training import train
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, 200)
    good = np.log(np.full((200, 10), 0.02))
    good[np.arange(200), y] = np.log(0.82)
    noise = ex.log_softmax_np(rng.normal(size=(200, 10)))
    lps = {"raw": ({"a": noise, "b": good, "c": noise}, y)}
    w, table = train.choose_weights(lps, ["a", "b", "c"], step=0.25)
    assert len(table) == 15 and abs(sum(w) - 1) < 1e-9 and w[1] >= 0.5


def test_ensemble_weights_score_every_combination_as_the_class_balanced_measure_does():
    from sketchwise_training import train
    rng = np.random.default_rng(1)
    y = rng.integers(0, 12, 300)
    members = {m: ex.log_softmax_np(rng.normal(size=(300, 12)) + 2.0 * (np.arange(12) == y[:, None])) for m in "abc"}
    lps = {"raw": ({m: lp[:100] for m, lp in members.items()}, y[:100]),
           "simplified": ({m: lp[100:] for m, lp in members.items()}, y[100:])}
    w, table = train.choose_weights(lps, list("abc"), step=0.1)
    assert len(table) == 66 and w in [list(k) for k in table]
    for weights, scored in table.items():
        mixed = sum(wi * members[m] for wi, m in zip(weights, "abc"))
        expected = pl.class_balanced_topk(torch.from_numpy(mixed), y)
        assert all(abs(scored[k] - expected[k]) < 1e-6 for k in expected), weights
    assert max(table.values(), key=lambda r: (r["top1"], r["top5"])) == table[tuple(w)]


def test_ensemble_weights_count_every_class_once():
    """A member right only on the one class that fills most of the pool loses to one right on
    every other class: each class counts once, not each drawing."""
    from sketchwise_training import train

    def answering(classes):
        lp = np.log(np.full((len(classes), 10), 0.02))
        lp[np.arange(len(classes)), classes] = np.log(0.82)
        return lp

    y = np.array([0] * 60 + list(range(1, 10)) * 2)
    crowd = answering(np.zeros_like(y))  # always the big class: 77 % of the drawings, 1 class of 10
    rest = answering(np.where(y == 0, 1, y))  # right on the other 9 classes
    w, table = train.choose_weights({"simplified": ({"crowd": crowd, "rest": rest}, y)}, ["crowd", "rest"], step=0.5)
    assert w == [0.0, 1.0]
    assert abs(table[(1.0, 0.0)]["top1"] - 0.1) < 1e-6 and abs(table[(0.0, 1.0)]["top1"] - 0.9) < 1e-6


def test_prefixes_keep_the_strokes_that_sketchwise_eval_keeps():
    """ceil(share x count), at least one stroke, a whole product not rounded up (Swift's
    PrefixScore.strokesKept)."""
    from sketchwise_training import train
    kept = {(share, n): train.strokes_kept(share, n) for share in (0.25, 0.5, 0.75, 1.0) for n in (1, 2, 3, 4, 7)}
    assert kept[(0.25, 1)] == 1 and kept[(0.25, 7)] == 2 and kept[(0.5, 3)] == 2 and kept[(0.5, 4)] == 2
    assert kept[(0.75, 4)] == 3 and kept[(0.75, 7)] == 6 and all(kept[(1.0, n)] == n for n in (1, 2, 3, 4, 7))
    assert train.strokes_kept(0.1 * 3, 10) == 3  # 3.0000000000000004 strokes: not rounded up to 4
