
from sketchwise_data import quickdraw as qd
from sketchwise_data.corpus import build_corpus
from synth import write_dataset


def test_key_rule_deterministic_and_fraction():
    keys = [str(4500000000000000 + 7919 * i) for i in range(20000)]
    a = [qd.key_is_validation(k) for k in keys]
    assert a == [qd.key_is_validation(k) for k in keys]
    assert abs(sum(a) / len(a) - qd.VAL_FRACTION) < 0.01
    assert qd.key_is_validation(123) == qd.key_is_validation("123")
    # index rule, independent of the key rule
    b = [qd.is_validation("bitmap", "cat", i) for i in range(20000)]
    assert abs(sum(b) / len(b) - qd.VAL_FRACTION) < 0.01


def test_raw_and_simplified_copies_share_a_side(tmp_path):
    data = write_dataset(tmp_path / "d", per_class=40)
    c = build_corpus(data, fraction=0.5, use_cache=False, log=lambda m: None)
    q = data / "quickdraw"
    val_keys, train_keys = set(), set()
    for sub in ("raw", "simplified"):
        for cls in qd.load_categories(q):
            for r in qd.iter_ndjson(q / sub / f"{cls}.ndjson", parse=False):
                (val_keys if qd.key_is_validation(r["key_id"], 0.5) else train_keys).add(r["key_id"])
    assert not (val_keys & train_keys)
    # the corpus agrees: validation raw + simplified counts match the key rule
    n_val_raw = sum(1 for cls in qd.load_categories(q) for r in qd.iter_ndjson(q / "raw" / f"{cls}.ndjson", parse=False)
                    if qd.key_is_validation(r["key_id"], 0.5))
    assert len(c.val["raw"][0]) == n_val_raw
    # shared keys on the train side become one drawing with two variants
    assert sum(len(v) == 2 for v in c.train_variants) == sum(1 for s in c.train_sources if s == "raw+simplified")
