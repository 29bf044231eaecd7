"""Sketchwise's PyTorch side: training, export to the Sketchwise model format
(docs/model-format.md), import of published models, evaluation and parity fixtures.

The modules with a ``main`` run as ``python3 -m sketchwise_training.<module> --help`` (or as the
console scripts of training/pyproject.toml); the data side is the ``sketchwise_data`` package.
"""
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
"""The checkout this package lives in (it is installed editable, ``pip install -e training``):
the defaults that name ``Models/`` or ``Tests/`` fixtures are paths in it."""
MODELS = REPO / "Models"
