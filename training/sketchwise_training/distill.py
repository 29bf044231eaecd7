"""Knowledge distillation: exported models as a teacher whose softened answers train a student.

With about 20 drawings for most classes a student learns little from one-hot labels alone; a
teacher's full answer on every augmented drawing also says which classes it resembles. The
teacher is a set of exported models (files in the model format), rebuilt as PyTorch modules so
a whole batch runs at once; its answer is the weighted mean of their log-probabilities, the
ensemble's own rule.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch
import torch.nn.functional as F

from . import pipeline as pl
from .models import load_exported


def is_raster(model) -> bool:
    """Whether a teacher member reads images (a RasterCNN, or an imported or exported raster spec)."""
    return getattr(model, "channels", None) is not None


class Teacher:
    """Exported or imported models answering together. ``spec`` is ``ensemble`` (the members and
    weights of ``ensemble.json``) or a comma-separated list of model names, each optionally with
    a weight (``doodlenet:0.7,raster-cnn:0.3``; equal weights where none is given). Every member
    must list the same labels in the same order (an import maps its classes to ours)."""

    def __init__(self, models_dir: Path, spec: str):
        models_dir = Path(models_dir)
        if spec == "ensemble":
            ens = json.loads((models_dir / "ensemble.json").read_text())
            names, weights = ens["members"], ens["weights"]
        else:
            parts = [p.split(":") for p in spec.split(",") if p]
            names = [p[0] for p in parts]
            weights = [float(p[1]) if len(p) > 1 else 1.0 for p in parts]
        total = sum(weights)
        labels = {n: json.loads((models_dir / f"{n}.json").read_text(encoding="utf-8"))["labels"] for n in names}
        self.labels = labels[names[0]]
        if any(v != self.labels for v in labels.values()):
            raise ValueError("teacher: its models must list the same labels in the same order")
        self.members = [(n, load_exported(models_dir, n), w / total) for n, w in zip(names, weights)]
        rasters = [m for _, m, _ in self.members if is_raster(m)]
        if any(m.size != pl.BITMAP_SIZE for m in rasters):  # the batches render its planes at this side
            raise ValueError(f"teacher: raster models must read {pl.BITMAP_SIZE}x{pl.BITMAP_SIZE} renders")
        self.raster_channels = sorted({c for m in rasters for c in m.channels}, key=("ink", "order").index)

    def to(self, device) -> "Teacher":
        """Moves every member to ``device``."""
        self.members = [(n, m.to(device), w) for n, m, w in self.members]
        return self

    @property
    def description(self) -> str:
        return ", ".join(f"{n} {w:.2f}" for n, _, w in self.members)

    @torch.no_grad()
    def log_probs(self, images: torch.Tensor | None, rows: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The teacher's log-probabilities for a batch of drawings given as raster planes
        ``[N, len(raster_channels), 28, 28]`` (pixel/255) and padded sequence rows."""
        total = 0.0
        for _, model, w in self.members:
            if is_raster(model):
                planes = [self.raster_channels.index(c) for c in model.channels]
                logits, _ = model(images[:, planes])
            else:
                logits, _ = model(rows, lengths)
            total = total + w * F.log_softmax(logits, 1)
        return F.log_softmax(total, 1)


def distillation_loss(student_logits: torch.Tensor, teacher_log_probs: torch.Tensor, temperature: float,
                      reduction: str = "batchmean") -> torch.Tensor:
    """KL(teacher ‖ student) at ``temperature``, both softened, scaled by T² so its gradients
    keep the size of the cross-entropy's (Hinton et al. 2015). ``reduction="none"``: one value
    per sample."""
    t = temperature
    teacher = F.log_softmax(teacher_log_probs / t, 1)
    student = F.log_softmax(student_logits / t, 1)
    kl = F.kl_div(student, teacher, log_target=True, reduction="none").sum(1) * t * t
    return kl.mean() if reduction == "batchmean" else kl
