"""The PyTorch version the training code is pinned to (training/requirements.txt) against the one
that runs it. Weights, fixtures and figures are reproducible under the pinned version; a lent GPU
machine brings its own build, which is fine for training but worth a line in the log and the run's
record, so that a difference between two runs can be traced to it."""
from __future__ import annotations

import sys

import torch

from . import REPO

REQUIREMENTS = REPO / "training" / "requirements.txt"


def pinned_torch(requirements=REQUIREMENTS) -> str | None:
    """The version after ``torch==`` in the requirements file, or None when there is no pin."""
    for line in requirements.read_text().splitlines():
        requirement = line.split("#", 1)[0].strip()
        if requirement.startswith("torch=="):
            return requirement.removeprefix("torch==")
    return None


def public_version(version: str) -> str:
    """A version without its local part: ``2.13.0+cpu`` and ``2.13.0+cu128`` are both ``2.13.0``."""
    return version.split("+", 1)[0]


def torch_mismatch(running: str | None = None, pinned: str | None = None) -> str | None:
    """A sentence saying that the running PyTorch is not the pinned one (the build, CPU or CUDA,
    aside), or None when they agree or nothing is pinned."""
    running = running or torch.__version__
    pinned = pinned if pinned is not None else pinned_torch()
    if pinned is None or public_version(running) == public_version(pinned):
        return None
    return (f"PyTorch {running} is running, not the pinned {pinned} (training/requirements.txt): "
            "weights and figures may differ from those made with the pinned version")


def warn_if_torch_differs():
    """Writes :func:`torch_mismatch`'s sentence to standard error when there is one."""
    if (problem := torch_mismatch()) is not None:
        print(f"warning: {problem}", file=sys.stderr, flush=True)
