import json
import subprocess
import sys
import time
from pathlib import Path

from conftest import TRAINING, needs_data


@needs_data
def test_smoke_run(tmp_path):
    out = tmp_path / "models"
    t0 = time.time()
    r = subprocess.run([sys.executable, str(TRAINING / "train.py"), "all", "--smoke", "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for name in ("raster-cnn", "stroke-rnn"):
        assert (out / f"{name}.safetensors").stat().st_size > 1000
        spec = json.loads((out / f"{name}.json").read_text())
        assert len(spec["labels"]) == 345 and spec["labels"][0] == "aircraft carrier"
        assert (out / "parity" / f"{name}.json").exists()
    ens = json.loads((out / "ensemble.json").read_text())
    assert ens["members"] == ["raster-cnn", "stroke-rnn"] and abs(sum(ens["weights"]) - 1) < 1e-6
    assert "epoch 1/1" in r.stdout
    print(f"smoke run: {time.time() - t0:.0f}s")
