import numpy as np
import pytest

from sketchwise_data import sequence


def test_encode_matches_swift_semantics():
    strokes = [[[0, 10, 10], [0, 0, 20]], [[5], [5]]]
    v, n = sequence.encode(strokes, length=6, normalization="perAxis")
    assert n == 3 and v.shape == (6, 3) and v.dtype == np.float32
    # box 10 x 20 -> x/10, y/20; first point dropped; pen-up on each stroke's last point
    np.testing.assert_allclose(v[:3], [[1, 0, 0], [0, 1, 1], [-0.5, -0.75, 1]])
    assert not v[3:].any()
    u, n2 = sequence.encode(strokes, length=6, normalization="uniform")
    np.testing.assert_allclose(u[:3], [[0.5, 0, 0], [0, 1, 1], [-0.25, -0.75, 1]])


def test_cut_empty_and_degenerate():
    strokes = [[list(range(50)), [0] * 50]]
    v, n = sequence.encode(strokes, length=10)
    assert n == 10
    assert sequence.encode([], 8)[1] == 0
    assert sequence.encode([[[3], [4]]], 8)[1] == 0  # a single point has no rows
    np.testing.assert_array_equal(sequence.encode_rows([], 8), [[0, 0, 1]])
    v, n = sequence.encode([[[2, 2], [3, 3]]], 4)  # zero-size box: scale 1
    assert n == 1 and not v[0, :2].any() and v[0, 2] == 1
    with pytest.raises(ValueError):
        sequence.encode(strokes, 4, "bogus")


def test_float_rounding_like_swift():
    strokes = [[[0.1, 0.7, 0.3], [0.2, 0.9, 0.4]]]
    v, n = sequence.encode(strokes, 4, "perAxis")
    nx = (np.array([0.1, 0.7, 0.3]) - 0.1) / (0.7 - 0.1)
    assert v[0, 0] == np.float32(nx[1] - nx[0])  # Float(Double difference)


def test_decode_roundtrip():
    strokes = [[[0, 4, 8], [0, 4, 0]], [[1, 2], [7, 8]]]
    v, n = sequence.encode(strokes, 16, "uniform")
    d = sequence.decode(v, n)
    assert len(d) == 2
    np.testing.assert_allclose(d[0][0], [0, 0.5, 1.0])
    np.testing.assert_allclose(d[1][0], [0.125, 0.25])
    np.testing.assert_allclose(d[1][1], [0.875, 1.0])
