import sys
from pathlib import Path

import pytest

TRAINING = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TRAINING))

from sketchwise_data import quickdraw as qd  # noqa: E402

HAVE_DATA = (qd.DEFAULT_DATA / "quickdraw" / "categories.txt").exists()
needs_data = pytest.mark.skipif(
    not HAVE_DATA, reason=f"SKIPPED: Quick, Draw! data not found at {qd.DEFAULT_DATA} (set SKETCHWISE_DATA)")


def pytest_report_header(config):
    if not HAVE_DATA:
        return f"NOTE: {qd.DEFAULT_DATA}/quickdraw is absent: data-dependent tests (smoke run) will be skipped"
    return f"Quick, Draw! data: {qd.DEFAULT_DATA}"
