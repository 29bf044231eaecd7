"""sketchwise_training.pseudo_labels: what counts as a possible copy of an evaluation drawing, and the
clustering into pseudo-classes."""
import numpy as np
import torch

from sketchwise_training import pseudo_labels as P


def stroke(xs, ys):
    return [np.asarray(xs, np.float64), np.asarray(ys, np.float64)]


CROSS = [stroke([0, 100], [50, 50]), stroke([50, 50], [0, 100])]
CIRCLE = [stroke(50 + 45 * np.cos(np.linspace(0, 2 * np.pi, 40)), 50 + 45 * np.sin(np.linspace(0, 2 * np.pi, 40)))]


def test_a_rescaled_quantised_copy_is_caught_and_another_character_is_not():
    copy = [stroke(np.round(s[0] * 3.1 / 6) * 6 + 40, np.round(s[1] * 3.1 / 6) * 6 - 7) for s in CROSS]
    other = [stroke([0, 100], [0, 100]), stroke([0, 100], [100, 0])]
    assert P.possible_copies([copy, other, CIRCLE], [CROSS]).tolist() == [True, False, False]


def test_a_copy_with_its_strokes_split_differently_is_caught_by_its_raster():
    redrawn = [stroke([0, 50], [50, 50]), stroke([50, 100], [50, 50]), stroke([50, 50], [0, 50]), stroke([50, 50], [50, 100])]
    assert P.possible_copies([redrawn], [CROSS]).tolist() == [True]


def test_clusters_follow_the_groups_and_drop_their_outskirts():
    g = torch.Generator().manual_seed(3)
    centres = torch.nn.functional.normalize(torch.randn(6, 32, generator=g), dim=1)
    points = torch.nn.functional.normalize(centres.repeat_interleave(10, 0) + 0.15 * torch.randn(60, 32, generator=g), dim=1)
    labels = np.array(P.pseudo_classes(points, per_cluster=10, min_size=4, keep=0.8))
    assert (labels >= 0).sum() == 48, "each cluster keeps its 8 members closest to the centre"
    for group in range(6):
        kept = labels[group * 10:(group + 1) * 10]
        assert len(set(kept[kept >= 0])) == 1, f"group {group} is one pseudo-class"
    assert len(set(labels[labels >= 0])) == 6
