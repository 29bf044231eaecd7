import json

import numpy as np
import pytest

from sketchwise_data import quickdraw as qd
from sketchwise_data.corpus import build_corpus, is_google_simplified
from synth import write_dataset


@pytest.fixture()
def data(tmp_path):
    return write_dataset(tmp_path / "data")


def test_categories_and_ndjson_stream(data):
    q = data / "quickdraw"
    assert qd.load_categories(q) == ["cat", "dog", "The Eiffel Tower"]
    recs = list(qd.iter_ndjson(q / "raw" / "cat.ndjson"))
    assert len(recs) == 30
    r = recs[0]
    assert r["word"] == "cat" and isinstance(r["key_id"], str)
    assert all(len(s) == 3 for s in r["drawing"])  # x, y, t rows
    assert len(list(qd.iter_ndjson(q / "raw" / "cat.ndjson", limit=4))) == 4
    assert len(list(qd.iter_ndjson(q / "simplified" / "cat.ndjson"))) == 15  # blank lines skipped


def test_ndjson_bad_line(tmp_path):
    p = tmp_path / "x.ndjson"
    p.write_text('{"word": "a", "key_id": "1", "drawing": [[[1], [2]]]}\nnot json\n')
    with pytest.raises(ValueError, match="x.ndjson:2"):
        list(qd.iter_ndjson(p))


def test_npz_stroke3(data):
    items = qd.load_npz(data / "quickdraw" / "sketchrnn" / "cat.npz")
    assert len(items) == 30 + 5 + 3
    assert {k for k, _, _ in items} == {"train", "valid", "test"}
    rows = np.array([[5, 0, 0], [0, 5, 1], [-5, 0, 0], [1, 1, 1]], np.int16)
    strokes = qd.stroke3_to_strokes(rows)
    assert len(strokes) == 2
    np.testing.assert_array_equal(strokes[0][0], [5, 5])
    np.testing.assert_array_equal(strokes[0][1], [0, 5])
    np.testing.assert_array_equal(strokes[1][0], [0, 1])
    np.testing.assert_array_equal(strokes[1][1], [5, 6])
    # a trailing stroke without pen lift is kept
    assert len(qd.stroke3_to_strokes(np.array([[1, 1, 0], [1, 1, 0]]))) == 1


def test_bitmaps(data, tmp_path):
    b = qd.load_bitmaps(data / "quickdraw" / "bitmap" / "cat.npy")
    assert b.shape == (60, 784) and b.dtype == np.uint8
    np.save(tmp_path / "bad.npy", np.zeros((3, 10), np.uint8))
    with pytest.raises(ValueError):
        qd.load_bitmaps(tmp_path / "bad.npy")


def test_corpus_on_synthetic_data(data):
    c = build_corpus(data, fraction=0.3, use_cache=False, log=lambda m: None)
    assert c.classes == ["cat", "dog", "The Eiffel Tower"]
    s = c.sizes()
    n_keys = 90
    # every key_id is either train (one item, 1-2 variants) or validation (raw and maybe simplified)
    assert s["train_stroke_drawings"] - sum(1 for x in c.train_sources if x == "npz") + s["val_raw"] == n_keys
    assert s["train_bitmaps"] + s["val_bitmap"] == 60
    assert s["val_npz"] > 0 and s["val_raw"] > 0
    for strokes in c.val["raw"][1]:
        assert is_google_simplified(strokes)  # raw drawings are Google-simplified
    assert "raw+simplified" in c.train_sources


def test_records_without_key_id_are_read_and_split_by_index(data):
    """simplified-extra/ copies keep only word and drawing: no key_id, timestamp or recognized."""
    extra = data / "quickdraw" / "simplified-extra"
    extra.mkdir()
    drawing = [[[0, 100, 255], [0, 200, 40]], [[10, 20], [30, 40]]]
    with open(extra / "dog.ndjson", "w") as f:
        for _ in range(40):
            f.write(json.dumps({"word": "dog", "countrycode": "OA", "drawing": drawing}) + "\n")
    recs = list(qd.iter_ndjson(extra / "dog.ndjson"))
    assert len(recs) == 40 and "key_id" not in recs[0]
    kid, is_val = qd.record_split(recs[3], "simplified-extra", "dog", 3)
    assert kid == "simplified-extra/dog/3" and is_val == qd.is_validation("simplified-extra", "dog", 3)
    assert qd.record_split({"key_id": 42, "drawing": []}, "simplified-extra", "dog", 3) == ("42", qd.key_is_validation("42"))
    c = build_corpus(data, fraction=0.3, use_cache=False, log=lambda m: None)
    n_val = sum(qd.is_validation("simplified-extra", "dog", i, 0.3) for i in range(40))
    assert len(c.val["extra"][0]) == n_val and 0 < n_val < 40
    assert c.train_sources.count("extra") == 40 - n_val
