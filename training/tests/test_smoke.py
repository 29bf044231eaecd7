import json
import subprocess
import time

from conftest import TRAINING, command, needs_data


@needs_data
def test_smoke_run(tmp_path):
    out = tmp_path / "models"
    t0 = time.time()
    r = subprocess.run(command("train", "all", "--smoke", "--out", out),
                       cwd=TRAINING, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for name in ("raster-cnn", "stroke-rnn"):
        assert (out / f"{name}.safetensors").stat().st_size > 1000
        spec = json.loads((out / f"{name}.json").read_text())
        assert len(spec["labels"]) == 345 and spec["labels"][0] == "aircraft carrier"
        assert (out / "parity" / f"{name}.json").exists()
    ens = json.loads((out / "ensemble.json").read_text())
    assert ens["members"] == ["raster-cnn", "stroke-rnn"] and abs(sum(ens["weights"]) - 1) < 1e-6
    assert ens["bitmapWeights"] == [1.0, 0.0], "only the raster model reads bitmaps"
    assert "epoch 1/1" in r.stdout
    print(f"smoke run: {time.time() - t0:.0f}s")


@needs_data
def test_raster_smoke_run_distils_from_an_exported_teacher(tmp_path):
    """A raster student learns from a teacher (here a smoke-trained raster-cnn), with its own
    weight on bitmaps, starting from an exported model's weights."""
    teacher = tmp_path / "teacher"
    r = subprocess.run(command("train", "raster", "--smoke", "--out", teacher),
                       cwd=TRAINING, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = tmp_path / "student"
    r = subprocess.run(command("train", "raster", "--smoke", "--out", out, "--teacher", "raster-cnn", "--teacher-dir", teacher,
                               "--distill-alpha-bitmaps", "0.1", "--warm-start", teacher / "raster-cnn.json"),
                       cwd=TRAINING, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "distilling from raster-cnn 1.00 (alpha 0.5, on bitmaps 0.1, T 2.0)" in r.stdout
    spec = json.loads((out / "raster-cnn.json").read_text())
    assert spec["training"]["distilledFrom"]["alphaBitmaps"] == 0.1
