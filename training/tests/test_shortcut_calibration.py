"""The shortcut calibration's classifier matches Swift's NearestNeighborClassifier (3 nearest
examples vote by 1 / (distance + 0.01), ties to the nearer example; unknown by the nearest
example's distance), and its thresholds leave the asked share of untaught drawings unknown."""
import numpy as np

from sketchwise_training import shortcut_calibration as C


def unit(*v):
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def test_one_close_example_outvotes_two_far_ones():
    examples = np.stack([unit(1, 0.9), unit(1, -0.9), unit(1, 0.95), unit(1, 0.01), unit(-1, 0), unit(-1, 0.1)])
    labels, nearest = C.answers(np.stack([unit(1, 0)]), examples, np.array([0, 0, 0, 1, 1, 1]))
    assert labels.tolist() == [1]
    assert abs(nearest[0] - (1 - unit(1, 0.01)[0])) < 1e-9


def test_the_threshold_leaves_the_share_beyond_it():
    untaught = np.linspace(0.0, 1.0, 101)
    threshold = C.loosest_rejecting(untaught, 0.9)
    assert np.mean(untaught > threshold) >= 0.9
    assert np.mean(untaught > threshold + 0.011) < 0.9, "the loosest such threshold"


def test_validation_classes_are_a_fixed_half_of_the_held_out_ones():
    from sketchwise_training.embedding import qd_held_out, qd_validation
    names = [f"class {i}" for i in range(2000)]
    held = [n for n in names if qd_held_out(n)]
    validation = [n for n in held if qd_validation(n)]
    assert all(qd_held_out(n) for n in validation)
    assert 0.4 < len(validation) / len(held) < 0.6
    assert validation == [n for n in held if qd_validation(n)], "the same each time"
