"""Google's binary .bin format of simplified drawings: layout, round trip, truncation."""
import numpy as np
import pytest

from conftest import needs_data
from sketchwise_data import quickdraw as qd


def record(key, strokes, word="cat"):
    return {"word": word, "key_id": key, "countrycode": "DE", "recognized": True,
            "timestamp": "2017-03-08 21:12:07.26604 UTC", "drawing": strokes}


def test_layout_matches_the_swift_writer():
    # The same record and bytes as QuickDrawBinaryTests.aRecordIsWrittenInGooglesLittleEndianLayout.
    data = qd.encode_bin(record("258", [[[1, 3], [2, 4]]]))
    assert list(data) == [2, 1, 0, 0, 0, 0, 0, 0, 0x44, 0x45, 1, 0xA7, 0x73, 0xC0, 0x58, 1, 0, 2, 0, 1, 3, 2, 4]


def test_round_trip_streams_records_with_the_class_from_the_file_name(tmp_path):
    path = tmp_path / "cat.bin"
    recs = [record("5152802093400064", [[[0, 255, 30], [0, 10, 255]], [[7], [8]]]),
            record("18446744073709551615", [[[1, 2], [1, 2]]])]
    assert qd.write_bin(path, recs) == 2
    back = list(qd.iter_records(path))
    assert [r["key_id"] for r in back] == ["5152802093400064", "18446744073709551615"]
    assert back[0]["word"] == "cat" and back[0]["countrycode"] == "DE" and back[0]["recognized"] is True
    assert back[0]["timestamp"] == "2017-03-08 21:12:07 UTC"
    assert [[row.tolist() for row in s] for s in back[0]["drawing"]] == [[[0, 255, 30], [0, 10, 255]], [[7], [8]]]
    assert back[0]["drawing"][0][0].dtype == np.float64
    assert list(qd.iter_bin(path, parse=False))[1]["drawing"] == [[[1, 2], [1, 2]]]
    assert len(list(qd.iter_bin(path, limit=1))) == 1


def test_a_file_cut_at_every_byte_names_the_drawing_and_offset(tmp_path):
    whole = qd.encode_bin(record("1", [[[1, 3], [2, 4]], [[5], [6]]])) + qd.encode_bin(record("2", [[[9], [9]]]))
    first_end = len(whole) - (17 + 4)
    path = tmp_path / "cut.bin"
    for length in range(len(whole)):
        path.write_bytes(whole[:length])
        complete = 1 if length >= first_end else 0
        if length in (0, first_end):
            assert len(list(qd.iter_bin(path))) == complete
            continue
        start = first_end if complete else 0
        with pytest.raises(ValueError, match=rf"cut.bin:{complete + 1}: drawing {complete} at byte {start}: "
                                             rf"the file ends at byte {length}, inside "):
            list(qd.iter_bin(path))


def test_bad_records_raise_or_are_skipped_and_huge_counts_are_truncation(tmp_path):
    header = bytes([1, 0, 0, 0, 0, 0, 0, 0]) + b"US" + bytes([1, 0, 0, 0, 0])
    path = tmp_path / "bad.bin"
    path.write_bytes(header + bytes([0, 0]) + header + bytes([1, 0, 0, 0]) + header + bytes([1, 0, 1, 0, 10, 20]))
    with pytest.raises(ValueError, match="bad.bin:1: drawing 0 at byte 0: a drawing with no strokes"):
        list(qd.iter_bin(path))
    kept = list(qd.iter_bin(path, skip_bad=True))
    assert len(kept) == 1 and kept[0]["countrycode"] == "US"
    path.write_bytes(header + bytes([0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4]))
    with pytest.raises(ValueError, match=r"the file ends at byte 23, inside stroke 0 of 65535, "
                                         r"which declares 65535 points \(131070 bytes\)"):
        list(qd.iter_bin(path))


def test_drawings_the_format_cannot_hold_are_refused():
    for strokes in ([], [[[], []]], [[[300], [0]]], [[[1.5], [0]]], [[[1, 2], [0]]]):
        with pytest.raises(ValueError):
            qd.encode_bin(record("1", strokes))
    with pytest.raises(ValueError, match="not a Quick, Draw! stroke file"):
        qd.iter_records("x.npy")


@needs_data
def test_googles_simplified_drawings_round_trip(tmp_path):
    recs = list(qd.iter_ndjson(qd.DEFAULT_DATA / "quickdraw" / "simplified" / "cat.ndjson", parse=False))
    path = tmp_path / "cat.bin"
    qd.write_bin(path, recs)
    back = list(qd.iter_bin(path, parse=False))
    assert len(back) == len(recs) > 10
    for a, b in zip(recs, back):
        assert b["drawing"] == a["drawing"] and b["key_id"] == a["key_id"] and b["countrycode"] == a["countrycode"]
        assert b["timestamp"] == a["timestamp"][:19] + " UTC"


def test_the_corpus_reads_simplified_drawings_from_bin_files(tmp_path):
    from sketchwise_data.corpus import build_corpus
    from synth import write_dataset

    data = write_dataset(tmp_path / "data")
    before = build_corpus(data, fraction=0.3, use_cache=False, log=lambda m: None).sizes()
    for path in sorted((data / "quickdraw" / "simplified").glob("*.ndjson")):
        qd.write_bin(path.with_suffix(".bin"), qd.iter_ndjson(path, parse=False))
        path.unlink()
    after = build_corpus(data, fraction=0.3, use_cache=False, log=lambda m: None).sizes()
    assert after == before and after["val_simplified"] + after["train_stroke_drawings"] > 0
