"""Training on the device (sketchwise_training.train_on_device and what it reads): the tensor rasteriser against
cairo, the on-disk index, exact resume and data-parallel training in two gloo processes."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from conftest import TRAINING, command, needs_data
from sketchwise_data import quickdraw as qd
from sketchwise_data import raster
from sketchwise_data.corpus import iter_class_drawings
from sketchwise_data.index import DrawingIndex, build_index, pack
from sketchwise_data import sequence
from sketchwise_data.tensor_augment import TensorAugment, augment
from sketchwise_data.tensor_raster import batch_from_strokes, render_strokes
from sketchwise_data.tensor_sequence import encode as encode_rows

SHAPES = ("circle", "line", "cross")


def shape_drawing(rng, shape):
    """A noisy drawing of one of three easy shapes, in Google's simplified form (0..255 integers)."""
    def clean(xs, ys):
        return [np.clip(np.rint(np.asarray(xs) + rng.normal(0, 3, len(xs))), 0, 255).astype(int).tolist(),
                np.clip(np.rint(np.asarray(ys) + rng.normal(0, 3, len(ys))), 0, 255).astype(int).tolist()]
    if shape == "circle":
        t = np.linspace(0, 2 * np.pi, 16)
        return [clean(128 + 120 * np.cos(t), 128 + 120 * np.sin(t))]
    if shape == "line":
        return [clean([0, 255], [128, 140])]
    return [clean([0, 255], [0, 255]), clean([255, 0], [0, 255])]


def write_shapes(root: Path, per_class: int = 60, seed: int = 0) -> Path:
    """A learnable data folder: three shape classes as simplified ndjson and as bitmaps."""
    rng = np.random.default_rng(seed)
    q = root / "quickdraw"
    (q / "simplified").mkdir(parents=True)
    (q / "bitmap").mkdir()
    (q / "categories.txt").write_text("\n".join(SHAPES) + "\n")
    for shape in SHAPES:
        drawings = [shape_drawing(rng, shape) for _ in range(per_class)]
        with open(q / "simplified" / f"{shape}.ndjson", "w") as f:
            for i, d in enumerate(drawings):
                f.write(json.dumps({"word": shape, "key_id": str(hash((shape, i)) % 10 ** 12), "drawing": d}) + "\n")
        np.save(q / "bitmap" / f"{shape}.npy", np.stack([raster.render(d).ravel() for d in drawings[:20]]))
    return root


@pytest.fixture(scope="module")
def shapes_index(tmp_path_factory):
    root = tmp_path_factory.mktemp("shapes")
    return build_index(write_shapes(root), root / "index", log=lambda _: None)


# ------------------------------------------------------------------ rasteriser
def test_tensor_rasteriser_matches_cairo_on_shapes():
    rng = np.random.default_rng(1)
    drawings = [shape_drawing(rng, s) for s in SHAPES for _ in range(5)] + [[[[40], [60]]]]  # and a dot
    ours = render_strokes(drawings).numpy()[:, 0]
    cairo = np.stack([raster.render(d) for d in drawings]) / 255.0
    assert np.corrcoef(ours.ravel(), cairo.ravel())[0, 1] >= 0.995
    assert np.abs(ours - cairo).mean() <= 0.01
    assert ours[-1].max() > 0.5, "a one-point stroke is a dot"


@needs_data
def test_tensor_rasteriser_matches_cairo_on_real_drawings():
    qdir = qd.DEFAULT_DATA / "quickdraw"
    drawings = []
    for cname in qd.load_categories(qdir)[::23]:
        drawings += [strokes for _, _, _, strokes in iter_class_drawings(qdir, cname, per_class_limit=20)]
    assert len(drawings) >= 300
    ours = render_strokes(drawings, channels=raster.CHANNELS).numpy()
    for plane, channel in enumerate(raster.CHANNELS):
        cairo = np.stack([raster.render(d, 28, channel) for d in drawings]) / 255.0
        corr, mad = np.corrcoef(ours[:, plane].ravel(), cairo.ravel())[0, 1], np.abs(ours[:, plane] - cairo).mean()
        print(f"{len(drawings)} real drawings, {channel}: correlation {corr:.4f}, mean absolute difference {mad:.4f}")
        assert corr >= 0.995 and mad <= 0.01, channel


def test_tensor_order_plane_matches_cairo_and_the_ink_plane_is_unchanged():
    rng = np.random.default_rng(3)
    drawings = [shape_drawing(rng, s) for s in SHAPES for _ in range(5)]
    planes = render_strokes(drawings, channels=("ink", "order")).numpy()
    assert np.array_equal(planes[:, 0], render_strokes(drawings).numpy()[:, 0])
    cairo = np.stack([raster.render(d, 28, "order") for d in drawings]) / 255.0
    assert np.corrcoef(planes[:, 1].ravel(), cairo.ravel())[0, 1] >= 0.995
    assert np.abs(planes[:, 1] - cairo).mean() <= 0.01
    ink, order = render_strokes([[[[0, 255], [0, 0]], [[0, 255], [255, 255]]]], channels=("ink", "order"))[0].numpy()
    np.testing.assert_allclose(order[:14], ink[:14], atol=1e-6, err_msg="the first stroke is opaque")
    np.testing.assert_allclose(order[14:], 0.25 * ink[14:], atol=1e-6, err_msg="the last at opacity 0.25")


def test_order_opacities_count_only_the_strokes_left_after_dropping():
    from sketchwise_data.tensor_raster import stroke_opacities
    strokes = torch.tensor([[0, 0, 2, 2, 5, -1], [0, 1, 1, -1, -1, -1]])  # strokes 1, 3, 4 of the first dropped
    opacity = stroke_opacities(strokes, 6)
    assert torch.allclose(opacity[0, [0, 2, 5]], torch.tensor([1.0, 0.625, 0.25], dtype=torch.float64))
    assert torch.allclose(opacity[1, [0, 1]], torch.tensor([1.0, 0.25], dtype=torch.float64))
    with pytest.raises(ValueError, match="unknown raster channels"):
        render_strokes([[[[1, 2], [3, 4]]]], channels=("ink", "depth"))


def test_tensor_rows_equal_the_sequence_encoder():
    rng = np.random.default_rng(2)
    drawings = [shape_drawing(rng, s) for s in SHAPES for _ in range(4)] + [[[[40], [60]]], [[[1, 2, 3], [4, 5, 6]]]]
    rows, lengths = encode_rows(*batch_from_strokes(drawings), length=20)
    for k, d in enumerate(drawings):
        expected = sequence.encode_rows(d, 20, "uniform")
        assert int(lengths[k]) == len(expected)
        assert np.array_equal(rows[k, :lengths[k]].numpy(), expected)
        assert not rows[k, lengths[k]:].any()


# ------------------------------------------------------------------ index
def test_index_holds_every_drawing_grouped_by_class(shapes_index, tmp_path):
    index = DrawingIndex(shapes_index)
    qdir = shapes_index.parent / "quickdraw"
    train = index["train"]
    expected = {c: [s for _, _, is_val, s in iter_class_drawings(qdir, c) if not is_val] for c in SHAPES}
    assert list(np.diff(train.class_offsets)) == [len(expected[c]) for c in SHAPES]
    for c, drawings in expected.items():
        first = int(train.class_offsets[SHAPES.index(c)])
        for k, strokes in enumerate(drawings):
            ours = train.strokes_of(first + k)
            assert [[list(x), list(y)] for x, y in ours] == [[list(map(float, s[0])), list(map(float, s[1]))] for s in strokes]
            assert train.labels[first + k] == SHAPES.index(c)
    val = sum(len(index[p]) for p in ("val-simplified",))
    assert val + len(train) == 3 * 60
    assert len(index["bitmaps-train"]) + len(index["bitmaps-val"]) == 60
    packed = DrawingIndex(pack(shapes_index, tmp_path / "split.npz"))
    for part in ("train", "val-simplified", "bitmaps-train"):
        for field in ("points", "strokes", "offsets", "labels", "images"):
            a, b = getattr(index[part], field), getattr(packed[part], field)
            assert (a is None) == (b is None) and (a is None or np.array_equal(a, b)), (part, field)


def test_index_reads_googles_binary_files(tmp_path):
    root = write_shapes(tmp_path / "data")
    simplified = root / "quickdraw" / "simplified"
    for file in list(simplified.glob("*.ndjson")):
        qd.write_bin(file.with_suffix(".bin"), qd.iter_ndjson(file))
        file.unlink()
    index = DrawingIndex(build_index(root, tmp_path / "index", log=lambda _: None))
    assert len(index["train"]) + len(index["val-simplified"]) == 3 * 60


def test_a_stopped_index_build_leaves_no_index(tmp_path):
    root = write_shapes(tmp_path / "data")
    (root / "quickdraw" / "simplified" / "line.ndjson").write_text('{"word": "line", "drawing": [[[1, 2]')
    with pytest.raises(ValueError):
        build_index(root, tmp_path / "index", log=lambda _: None)
    assert not (tmp_path / "index").exists()


def test_bitmaps_are_mirrored_exactly_and_a_quarter_stay_sharp():
    from sketchwise_data.tensor_augment import bitmap_augment
    images = torch.rand(400, 1, 28, 28)
    flipped = bitmap_augment(images, torch.Generator().manual_seed(1), p_mirror=1.0, p_affine=0.0)
    assert torch.equal(flipped, images.flip(3)), "a mirror is a flip, without resampling"
    out = bitmap_augment(images, torch.Generator().manual_seed(1))
    untouched = [bool(torch.equal(o, i) or torch.equal(o, i.flip(2))) for o, i in zip(out, images)]
    assert 0.15 < sum(untouched) / len(images) < 0.35, "about a quarter stay as the runtime sees them"


def test_partial_drawings_keep_a_first_run_of_strokes_in_the_share_asked_for():
    ten_strokes = [[[i * 20, i * 20 + 10], [0, 255]] for i in range(10)]
    points, strokes = batch_from_strokes([ten_strokes] * 400)
    whole = TensorAugment(p_drop_stroke=0.0, p_mix=0.0, p_partial=0.0)
    _, kept, _, cut, _ = augment(points, strokes, torch.Generator().manual_seed(2), whole)
    assert bool((kept.amax(1) == 9).all()) and not bool(cut.any()), "no share: every drawing whole"
    half = TensorAugment(p_drop_stroke=0.0, p_mix=0.0, p_partial=0.5)
    _, kept, _, cut, _ = augment(points, strokes, torch.Generator().manual_seed(2), half)
    counts = [len(set(row[row >= 0].tolist())) for row in kept]
    for row, count in zip(kept, counts):
        assert set(row[row >= 0].tolist()) == set(range(count)), "a cut drawing keeps its first strokes"
    assert cut.tolist() == [c < 10 for c in counts], "the cut drawings are flagged"
    assert 0.35 < cut.float().mean() < 0.55, f"about half of them cut (k = 10 keeps a drawing whole): {cut.float().mean()}"


# ------------------------------------------------------------------ training
def train_args(index, run_dir, *extra):
    return ["train", "--index", str(index), "--run-dir", str(run_dir), "--device", "cpu", "--widths", "8,16,16",
            "--fc", "32", "--batch", "32", "--warmup", "5", "--eval-every", "0", "--threads", "1", *extra]


def run_in_process(argv):
    from sketchwise_training import train_on_device
    train_on_device.main(argv)
    return torch.load(Path(argv[argv.index("--run-dir") + 1]) / "ckpt.pt", weights_only=False)


@pytest.fixture(scope="module")
def teacher_dir(tmp_path_factory):
    """A small exported model over the shape classes, as a distillation teacher."""
    from sketchwise_training import export as ex
    from sketchwise_training.models import RasterCNN
    out = tmp_path_factory.mktemp("teacher")
    torch.manual_seed(3)
    ex.export_model(RasterCNN(3, widths=(4, 8, 8), fc=16).eval(), out, "teacher", list(SHAPES), "raster", "teacher",
                    extra_training={"config": {"widths": [4, 8, 8], "fc": 16}})
    return out


def test_a_stopped_and_resumed_run_ends_with_the_same_weights(shapes_index, teacher_dir, tmp_path):
    teacher = ["--teacher", "teacher", "--teacher-dir", str(teacher_dir)]
    whole = run_in_process(train_args(shapes_index, tmp_path / "whole", "--steps", "12", *teacher))
    run_in_process(train_args(shapes_index, tmp_path / "parts", "--steps", "12", "--stop-at-step", "5", *teacher))
    assert torch.load(tmp_path / "parts" / "ckpt.pt", weights_only=False)["state"]["step"] == 5
    resumed = run_in_process(["train", "--run-dir", str(tmp_path / "parts"), "--resume", "--device", "cpu", "--threads", "1"])
    assert resumed["state"]["step"] == whole["state"]["step"] == 12
    assert resumed["state"]["losses"] == whole["state"]["losses"]
    for name, tensor in whole["model"].items():
        assert torch.equal(tensor, resumed["model"][name]), name


def test_a_resumed_run_can_be_given_a_new_length(shapes_index, tmp_path):
    run_in_process(train_args(shapes_index, tmp_path / "run", "--steps", "40", "--stop-at-step", "6"))
    resume = ["train", "--run-dir", str(tmp_path / "run"), "--resume", "--device", "cpu", "--threads", "1"]
    with pytest.raises(SystemExit, match="already at step 6"):
        run_in_process([*resume, "--steps", "6"])
    shorter = run_in_process([*resume, "--steps", "10"])
    assert shorter["state"]["step"] == shorter["state"]["total_steps"] == 10, "the run ends at its new length"
    assert len(shorter["state"]["losses"]) == 10, "and continued from step 6"
    assert json.loads((tmp_path / "run" / "run.json").read_text())["steps"] == 10, "run.json says the new length"


def test_a_resumed_run_keeps_its_last_sittings_settings_unless_told_otherwise(shapes_index, tmp_path):
    run_dir = tmp_path / "run"
    run_in_process(train_args(shapes_index, run_dir, "--steps", "20", "--stop-at-step", "3"))  # cpu, 1 thread, no validation
    torch.set_num_threads(2)
    run_in_process(["train", "--run-dir", str(run_dir), "--resume", "--stop-at-step", "5", "--checkpoint-minutes", "2"])
    assert torch.get_num_threads() == 1, "the first sitting's --threads 1, not every core"
    settings = json.loads((run_dir / "run.json").read_text())
    assert (settings["device"], settings["threads"], settings["eval_every"], settings["checkpoint_minutes"]) == ("cpu", 1, 0, 2)
    assert settings["widths"] == "8,16,16" and settings["steps"] == 20, "the run's own settings are kept"
    ck = run_in_process(["train", "--run-dir", str(run_dir), "--resume", "--stop-at-step", "6", "--threads", "2"])
    assert torch.get_num_threads() == 2 and ck["state"]["step"] == 6
    assert json.loads((run_dir / "run.json").read_text())["checkpoint_minutes"] == 2, "carried from the sitting before"
    assert settings["torch"] == torch.__version__, "run.json names the sitting's PyTorch"
    torch.set_num_threads(1)


def test_the_teacher_weighs_partial_alpha_on_cut_drawings_only(teacher_dir):
    from sketchwise_training.distill import Teacher
    from sketchwise_training.models import RasterCNN
    from sketchwise_training.train_on_device import BITMAP, CUT, DRAWING, MIXED, step_loss
    torch.manual_seed(4)
    student, teacher = RasterCNN(3, widths=(4, 8, 8), fc=16).eval(), Teacher(teacher_dir, "teacher")
    images, labels = torch.rand(4, 1, 28, 28), torch.tensor([0, 1, 2, 0])
    def loss(kind, **given):
        return step_loss(student, teacher, images, None, labels, torch.full((4,), kind), 0.7, 3.0, **given)
    ce = torch.nn.functional.cross_entropy(student(images)[0], labels, label_smoothing=0.1)
    torch.testing.assert_close(loss(CUT, partial_alpha=0.0), ce, msg="alpha 0 on cut drawings: labels alone")
    torch.testing.assert_close(loss(CUT), loss(DRAWING), msg="no partial alpha: cut drawings as any other")
    torch.testing.assert_close(loss(DRAWING, partial_alpha=0.0), loss(DRAWING), msg="whole drawings keep alpha")
    torch.testing.assert_close(loss(MIXED, partial_alpha=0.0), loss(MIXED), msg="mixed ones the teacher alone")
    torch.testing.assert_close(loss(BITMAP, partial_alpha=0.5), ce, msg="bitmaps labels alone")

def test_the_partial_share_is_fixed_at_a_runs_start_and_older_runs_resume_with_theirs(shapes_index, tmp_path):
    run_dir = tmp_path / "run"
    ck = run_in_process(train_args(shapes_index, run_dir, "--steps", "8", "--stop-at-step", "2", "--partial-share", "0.5"))
    assert ck["run"]["partial_share"] == 0.5
    ck = run_in_process(["train", "--run-dir", str(run_dir), "--resume", "--stop-at-step", "4", "--partial-share", "0.9"])
    assert ck["run"]["partial_share"] == 0.5, "a run's share is its own, whatever the resuming command says"
    record = json.loads((run_dir / "run.json").read_text())
    del record["partial_share"]  # as a run.json from before --partial-share
    (run_dir / "run.json").write_text(json.dumps(record))
    ck = run_in_process(["train", "--run-dir", str(run_dir), "--resume"])
    assert ck["state"]["step"] == 8 and ck["run"]["partial_share"] == TensorAugment.p_partial


def test_the_precision_is_bf16_where_the_hardware_multiplies_it_and_a_bf16_run_learns(shapes_index, tmp_path):
    from sketchwise_training.train_on_device import cpu_has_native_bf16, resolve_precision
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    assert resolve_precision(cuda) == "bf16" and resolve_precision(cpu, "fp32") == "fp32"
    assert resolve_precision(cpu) == ("bf16" if cpu_has_native_bf16() else "fp32")
    run_dir = tmp_path / "run"
    ck = run_in_process(train_args(shapes_index, run_dir, "--steps", "30", "--lr", "0.01", "--precision", "bf16",
                                   "--stop-at-step", "25"))
    losses = np.array(ck["state"]["losses"])
    assert np.isfinite(losses).all() and losses[-5:].mean() < 0.8 * losses[:5].mean(), "a bf16 run learns"
    assert all(t.dtype == torch.float32 for t in ck["model"].values() if t.is_floating_point()), "its weights stay fp32"
    ck = run_in_process(["train", "--run-dir", str(run_dir), "--resume"])
    assert ck["state"]["step"] == 30 and json.loads((run_dir / "run.json").read_text())["precision"] == "bf16"


def test_a_time_budget_ends_the_run_though_the_pace_is_never_measured_by_steps(shapes_index, tmp_path):
    # --timing-steps beyond any run: only the budget's own clock (a twentieth of it) can set the length
    ck = run_in_process(train_args(shapes_index, tmp_path / "run", "--minutes", "0.01", "--timing-steps", "1000000"))
    assert ck["state"]["total_steps"] == ck["state"]["step"] < 1000000


def test_a_warm_started_run_starts_from_the_models_weights(shapes_index, teacher_dir, tmp_path):
    # lr 0: the weights stay the exported model's (the batch norms' running statistics move)
    ck = run_in_process(train_args(shapes_index, tmp_path / "run", "--widths", "4,8,8", "--fc", "16", "--steps", "1",
                                   "--lr", "0", "--warm-start", str(teacher_dir / "teacher.json")))
    from sketchwise_training.models import load_exported
    exported = load_exported(teacher_dir, "teacher").state_dict()
    for name in ("conv1.weight", "conv3.bias", "bn2.weight", "fc1.weight", "fc2.bias"):
        assert torch.equal(ck["model"][name], exported[name]), name
    from sketchwise_training import train_on_device
    train_on_device.main(["export", "--run-dir", str(tmp_path / "run"), "--name", "fast", "--out", str(tmp_path / "out"),
                          "--views", "original", "--version", "1.1.0"])
    spec = json.loads((tmp_path / "out" / "fast.json").read_text())
    assert spec["input"].get("views", ["original"]) == ["original"] and spec["version"] == "1.1.0"
    assert spec["training"]["startedFrom"].endswith("teacher.json")
    with pytest.raises(SystemExit):
        train_on_device.main(["export", "--run-dir", str(tmp_path / "run"), "--name", "x", "--views", "sideways"])
    with pytest.raises(ValueError, match="warm-start"):  # another shape is refused, not silently skipped
        run_in_process(train_args(shapes_index, tmp_path / "other", "--steps", "1",
                                  "--warm-start", str(teacher_dir / "teacher.json")))


def test_two_gloo_processes_follow_one_process_with_the_same_global_batch(shapes_index, tmp_path):
    steps = ["--steps", "40", "--lr", "0.01"]
    single = run_in_process(train_args(shapes_index, tmp_path / "single", *steps))
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                    "-m", "sketchwise_training.train_on_device", *train_args(shapes_index, tmp_path / "ddp", *steps)],
                   check=True, env=env, cwd=TRAINING, timeout=300)
    ddp = torch.load(tmp_path / "ddp" / "ckpt.pt", weights_only=False)
    assert ddp["state"]["world"] == 2 and ddp["state"]["step"] == 40
    assert (tmp_path / "ddp" / "rng-rank1.pt").exists()
    one, two = np.array(single["state"]["losses"]), np.array(ddp["state"]["losses"])
    print(f"loss, steps 1-5 / 31-40: one process {one[:5].mean():.3f} / {one[-10:].mean():.3f}, "
          f"two {two[:5].mean():.3f} / {two[-10:].mean():.3f}")
    assert two[-10:].mean() < 0.7 * two[:5].mean(), "the data-parallel run learns"
    assert abs(two[-10:].mean() - one[-10:].mean()) < 0.25 * one[:5].mean()
    assert abs(two[:5].mean() - one[:5].mean()) < 0.1 * one[:5].mean()


def test_a_stroke_student_trains_and_exports(shapes_index, teacher_dir, tmp_path):
    from sketchwise_training.models import load_exported
    from sketchwise_training import train_on_device
    ck = run_in_process(train_args(shapes_index, tmp_path / "run", "--model", "strokes", "--convs", "8:3", "--hidden", "8",
                                   "--lstm-layers", "1", "--steps", "6", "--teacher", "teacher", "--teacher-dir", str(teacher_dir)))
    assert ck["state"]["step"] == 6
    train_on_device.main(["export", "--run-dir", str(tmp_path / "run"), "--name", "strokes", "--out", str(tmp_path / "out")])
    spec = json.loads((tmp_path / "out" / "strokes.json").read_text())
    assert spec["input"]["kind"] == "strokes" and spec["labels"] == list(SHAPES)
    model = load_exported(tmp_path / "out", "strokes")
    rows, lengths = encode_rows(*batch_from_strokes([shape_drawing(np.random.default_rng(4), s) for s in SHAPES]))
    module, _ = train_on_device.build_student(ck["run"], 3)
    module.load_state_dict(ck["model"])
    assert torch.allclose(model(rows, lengths)[0], module.eval()(rows, lengths)[0], atol=1e-5)


def test_an_order_plane_student_learns_from_an_ink_teacher_and_exports_its_planes(shapes_index, teacher_dir, tmp_path):
    from sketchwise_training import train_on_device
    from sketchwise_training.models import load_exported
    index = DrawingIndex(shapes_index)
    samplers = {p: train_on_device.BalancedSampler(np.asarray(index[p].class_offsets)) for p in ("train", "bitmaps-train")}
    images, _, kinds, _ = train_on_device.make_batch(index, samplers, 8, 24, torch.Generator().manual_seed(0), "cpu",
                                                     train_on_device.TensorAugment(), channels=("ink", "order"))
    assert images.shape == (32, 2, 28, 28)
    assert not images[kinds == 2, 1].any() and images[kinds == 2, 0].any(), "a bitmap's order plane is empty"
    assert (images[kinds < 2, 1] <= images[kinds < 2, 0] + 1e-6).all(), "stroke-order shading never adds ink"
    ck = run_in_process(train_args(shapes_index, tmp_path / "run", "--widths", "4,8,8", "--fc", "16", "--channels",
                                   "ink,order", "--steps", "4", "--teacher", "teacher", "--teacher-dir", str(teacher_dir),
                                   "--warm-start", str(teacher_dir / "teacher.json")))
    assert ck["model"]["conv1.weight"].shape[1] == 2 and ck["run"]["channels"] == "ink,order"
    train_on_device.main(["export", "--run-dir", str(tmp_path / "run"), "--name", "order", "--out", str(tmp_path / "out")])
    spec = json.loads((tmp_path / "out" / "order.json").read_text())
    assert spec["input"]["raster"]["channels"] == ["ink", "order"] and spec["input"]["shape"] == [2, 28, 28]
    drawings = [shape_drawing(np.random.default_rng(5), s) for s in SHAPES]
    planes = render_strokes(drawings, channels=("ink", "order"))
    module, _ = train_on_device.build_student(ck["run"], 3)
    module.load_state_dict(ck["model"])
    assert torch.allclose(load_exported(tmp_path / "out", "order")(planes)[0], module.eval()(planes)[0], atol=1e-5)
    with pytest.raises(SystemExit):
        train_on_device.main(train_args(shapes_index, tmp_path / "bad", "--channels", "ink,depth", "--steps", "1"))


def test_sigterm_leaves_a_checkpoint_that_resumes(shapes_index, tmp_path):
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(command("train_on_device", *train_args(shapes_index, run_dir, "--steps", "100000")),
                            cwd=TRAINING, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        if "parameters" in line:  # the loop is about to start
            break
    proc.send_signal(15)
    output = proc.communicate(timeout=120)[0]
    assert proc.returncode == 0, output
    state = torch.load(run_dir / "ckpt.pt", weights_only=False)["state"]
    assert 0 < state["step"] < 100000 and "stopped at step" in output
    resumed = run_in_process(["train", "--run-dir", str(run_dir), "--resume", "--stop-at-step", str(state["step"] + 2),
                              "--device", "cpu", "--threads", "1"])
    assert resumed["state"]["step"] == state["step"] + 2
