import sys
from pathlib import Path

import pytest

from sketchwise_data import quickdraw as qd

# training/: the folder the module commands run from (training/pyproject.toml puts it on the tests' path)
TRAINING = Path(__file__).resolve().parents[1]


def command(module: str, *args) -> list[str]:
    """``python3 -m sketchwise_training.<module> args…``, to run with ``cwd=TRAINING`` (installed or not)."""
    return [sys.executable, "-m", f"sketchwise_training.{module}", *map(str, args)]


HAVE_DATA = (qd.DEFAULT_DATA / "quickdraw" / "categories.txt").exists()
needs_data = pytest.mark.skipif(
    not HAVE_DATA, reason=f"SKIPPED: Quick, Draw! data not found at {qd.DEFAULT_DATA} (set SKETCHWISE_DATA)")


def pytest_report_header(config):
    if not HAVE_DATA:
        return f"NOTE: {qd.DEFAULT_DATA}/quickdraw is absent: data-dependent tests (smoke run) will be skipped"
    return f"Quick, Draw! data: {qd.DEFAULT_DATA}"
