"""Students (raster CNNs, the stroke model) trained where the batches are made: drawings read from the on-disk index,
augmented and rendered as tensor operations on the training device (CPU or CUDA), distilled from
a teacher, in one process or data-parallel over several.

    python3 -m sketchwise_training.train_on_device index --data ../shared/data --out /tmp/qd-index
    python3 -m sketchwise_training.train_on_device pack /tmp/qd-index /tmp/qd-split.npz   # one file to carry
    python3 -m sketchwise_training.train_on_device train --index /tmp/qd-index --teacher doodlenet \\
        --teacher-dir /tmp/imported --widths 96,192,384 --fc 768 --minutes 30 --run-dir runs/wide
    torchrun --nproc_per_node 2 -m sketchwise_training.train_on_device train ...      # data-parallel
    python3 -m sketchwise_training.train_on_device train --run-dir runs/wide --resume  # next sitting
    python3 -m sketchwise_training.train_on_device export --run-dir runs/wide --name raster-cnn-wide --out Models

Each step draws a class-balanced batch (each rank from its own shard of every class), renders
its stroke drawings after augmentation (``sketchwise_data.tensor_augment``), fills a share of
the batch with Google's bitmaps (labels only, a small affine) and minimises
``(1 - a) CE(labels, smoothing 0.1) + a T^2 KL(teacher || student)`` (``a`` 1 on mixed
drawings). AdamW, linear warm-up, cosine; bf16 autocast on CUDA and on CPUs that have bf16 in hardware.

The schedule is fixed in steps (``--steps``, or ``--minutes`` converted after timing the first
steps), so a run is the same whether it ran in one sitting or several: checkpoints are written
every ``--checkpoint-minutes`` and on SIGTERM, and ``--resume`` restores weights, optimiser,
step, every random generator (each rank's) and the history; the last sitting's device, threads,
checkpoint and validation settings hold unless given again.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F

from sketchwise_data import quickdraw as qd
from sketchwise_data.index import DrawingIndex, build_index, pack
from sketchwise_data.raster import CHANNELS
from sketchwise_data.tensor_augment import TensorAugment, augment, bitmap_augment
from sketchwise_data.tensor_raster import batch_from_index, render
from sketchwise_data.tensor_sequence import encode as encode_rows

from . import MODELS
from . import export as ex
from .distill import Teacher, distillation_loss
from .models import RasterCNN, StrokeRNN, warm_start
from .pipeline import MAX_LENGTH, lr_at
from .torch_version import warn_if_torch_differs

VALIDATION_PARTS = ("val-raw", "val-simplified", "val-npz", "val-extra", "bitmaps-val")


def log(msg: str):
    if not dist.is_initialized() or dist.get_rank() == 0:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ------------------------------------------------------------------ sampling
class BalancedSampler:
    """Class-balanced draws from one rank's shard of a class-grouped part: a class among those
    with drawings (uniformly, or with ``boost_cap`` > 1 up to that many times more often for
    classes rich in drawings: ``sqrt(n / median n)``, capped), then a drawing of it uniformly.
    Rank ``r`` of ``w`` owns items ``r, r + w, ...`` of every class (all of a class smaller than ``w``)."""

    def __init__(self, class_offsets: np.ndarray, rank: int = 0, world: int = 1, boost_cap: float = 1.0):
        starts, counts = class_offsets[:-1].astype(np.int64), np.diff(class_offsets).astype(np.int64)
        own = np.where(counts > rank, (counts - rank + world - 1) // world, 0)
        small = (counts > 0) & (counts < world)
        self.first = torch.from_numpy(np.where(small, starts, starts + rank))
        self.stride = torch.from_numpy(np.where(small, 1, world))
        self.count = torch.from_numpy(np.where(small, counts, own))
        self.classes = torch.nonzero(self.count > 0).flatten()
        present = counts[counts > 0].astype(np.float64)
        boost = np.clip(np.sqrt(present / np.median(present)), 1.0, max(1.0, boost_cap)) if len(present) else present
        self.weights = torch.from_numpy(boost)

    def draw(self, n: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """-> (item indices, labels), ``n`` of each."""
        labels = self.classes[torch.multinomial(self.weights, n, replacement=True, generator=gen)]
        within = (torch.rand(n, generator=gen, dtype=torch.float64) * self.count[labels]).long()
        return self.first[labels] + within * self.stride[labels], labels


# ------------------------------------------------------------------ one step
DRAWING, MIXED, BITMAP, CUT = 0, 1, 2, 3
"""A batch row's kind: a drawing, one with another's strokes beside it, a Google bitmap, a drawing cut to its first strokes."""


def make_batch(index: DrawingIndex, samplers: dict, n_bitmaps: int, n_drawings: int, gen, device, cfg: TensorAugment,
               sequences: bool = False, channels=("ink",)):
    """-> (images [B, len(channels), 28, 28], labels [B], kind [B] (``DRAWING``, ``MIXED``, ``BITMAP``, ``CUT``),
    and with ``sequences`` the drawings' stroke-model rows and lengths, else None). A bitmap has
    no stroke order: its ``order`` plane is empty, as no drawing's is."""
    ids, labels = samplers["train"].draw(n_drawings, gen)
    points, strokes = batch_from_index(index["train"], ids.tolist(), device=device)
    points, strokes, mixed, cut, line_scale = augment(points, strokes, gen, cfg)
    rows = encode_rows(points, strokes, MAX_LENGTH) if sequences else None
    images = [render(points, strokes, 28, line_scale, channels=channels)]
    kinds = [torch.where(mixed, MIXED, torch.where(cut, CUT, DRAWING))]
    all_labels = [labels]
    if n_bitmaps:
        ids, bitmap_labels = samplers["bitmaps-train"].draw(n_bitmaps, gen)
        raw = torch.from_numpy(np.asarray(index["bitmaps-train"].images[np.sort(ids.numpy())]))
        order = torch.argsort(torch.argsort(ids))  # rows back in draw order (sorted reads are faster)
        bitmaps = raw[order].to(device, torch.float32).reshape(-1, 1, 28, 28) / 255.0
        images.append(bitmap_planes(bitmap_augment(bitmaps, gen), channels))
        kinds.append(torch.full((n_bitmaps,), BITMAP, device=device))
        all_labels.append(bitmap_labels)
    return torch.cat(images), torch.cat(all_labels).to(device), torch.cat(kinds), rows


def bitmap_planes(bitmaps: torch.Tensor, channels) -> torch.Tensor:
    """Google's bitmaps ``[N, 1, 28, 28]`` as a raster model's input: the ink plane, every other plane empty."""
    return torch.cat([bitmaps if c == "ink" else torch.zeros_like(bitmaps) for c in channels], 1)


def step_loss(model, teacher, images, rows, labels, kinds, alpha: float, temperature: float, teacher_planes=None,
              partial_alpha: float | None = None):
    """Per drawing ``(1 - a) CE + a KD`` (a = alpha, 1 on mixed drawings, ``partial_alpha`` on cut
    ones where given: a teacher guesses poorly from a drawing's first strokes), CE alone on bitmaps;
    a stroke student reads ``rows`` (rows, lengths), the teacher the images (the planes
    ``teacher_planes`` of them, all by default)."""
    logits, _ = model(*rows) if rows is not None else model(images)
    loss = F.cross_entropy(logits.float(), labels, label_smoothing=0.1, reduction="none")
    if teacher is not None:
        drawn = kinds != BITMAP
        seen = images[drawn] if teacher_planes is None else images[drawn][:, teacher_planes]
        kd = distillation_loss(logits[drawn].float(), teacher.log_probs(seen, None, None).float(), temperature,
                               reduction="none")
        on_cut = alpha if partial_alpha is None else partial_alpha
        a = torch.where(kinds[drawn] == MIXED, 1.0, torch.where(kinds[drawn] == CUT, on_cut, alpha))
        loss = torch.cat([(1 - a) * loss[drawn] + a * kd, loss[~drawn]])
    return loss.mean()


# ------------------------------------------------------------------ validation
@torch.no_grad()
def validation_inputs(index: DrawingIndex, device, limit: int | None = None, sequences: bool = False,
                      channels=("ink",)) -> dict:
    """Each validation part rendered once (no augmentation), at most ``limit`` drawings of each spread
    evenly over it: name -> (model inputs in batches, labels); ``sequences``: a stroke model's rows."""
    out = {}
    for name in VALIDATION_PARTS:
        part = index[name]
        if len(part) == 0:
            continue
        rows = np.arange(len(part)) if limit is None or limit >= len(part) else \
            np.linspace(0, len(part) - 1, limit).round().astype(np.int64)  # evenly over the classes
        labels = torch.from_numpy(np.asarray(part.labels[rows], np.int64)).to(device)
        if name.startswith("bitmaps"):
            if sequences:
                continue  # a stroke model reads no bitmaps
            images = torch.from_numpy(np.array(part.images[rows])).to(device, torch.float32).reshape(-1, 1, 28, 28) / 255
            images = bitmap_planes(images, channels)
            out[name.removeprefix("val-")] = [(images[a:a + 2048],) for a in range(0, len(images), 2048)], labels
            continue
        batches = [batch_from_index(part, rows[a:a + 512].tolist(), device=device) for a in range(0, len(rows), 512)]
        inputs = [encode_rows(*b, MAX_LENGTH) if sequences else (render(*b, channels=channels),) for b in batches]
        out[name.removeprefix("val-")] = (inputs, labels)
    return out


@torch.no_grad()
def evaluate(model, inputs: dict, autocast) -> dict:
    """Top-1 per validation part (in the training's precision; the exported model's figures come from ``sketchwise eval``)."""
    model.eval()
    result = {}
    for name, (batches, labels) in inputs.items():
        with autocast():
            logits = torch.cat([model(*batch)[0].float() for batch in batches])
        result[name] = round(100.0 * float((logits.argmax(1) == labels).float().mean()), 2)
    model.train()
    return result


# ------------------------------------------------------------------ checkpoints
def _rng_file(run_dir: Path, rank: int) -> Path:
    return run_dir / f"rng-rank{rank}.pt"


def save_checkpoint(run_dir: Path, model, opt, state: dict, gen: torch.Generator, rank: int):
    """Every rank saves its random generators; rank 0 the weights, optimiser and state. Written
    beside and renamed, so a checkpoint is whole or absent."""
    rng = {"sampler": gen.get_state(), "torch": torch.get_rng_state(), "step": state["step"],
           "cuda": torch.cuda.get_rng_state() if torch.cuda.is_available() else None}
    tmp = _rng_file(run_dir, rank).with_suffix(".tmp")
    torch.save(rng, tmp)
    os.replace(tmp, _rng_file(run_dir, rank))
    if rank == 0:
        module = model.module if hasattr(model, "module") else model
        tmp = run_dir / "ckpt.tmp"
        run = json.loads((run_dir / "run.json").read_text())
        torch.save({"model": module.state_dict(), "opt": opt.state_dict(), "state": state, "run": run}, tmp)
        os.replace(tmp, run_dir / "ckpt.pt")


def load_checkpoint(run_dir: Path, model, opt, gen: torch.Generator, rank: int, device) -> dict:
    ck = torch.load(run_dir / "ckpt.pt", map_location=device, weights_only=False)
    (model.module if hasattr(model, "module") else model).load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    rng = torch.load(_rng_file(run_dir, rank), weights_only=False)
    if rng["step"] != ck["state"]["step"]:
        raise RuntimeError(f"{run_dir}: rank {rank}'s generators are from step {rng['step']}, "
                           f"the weights from step {ck['state']['step']}")
    gen.set_state(rng["sampler"])
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state(rng["cuda"])
    return ck["state"]


# ------------------------------------------------------------------ train
def reschedule(state: dict, steps: int):
    """A resumed run's new length (``--resume --steps N``): the cosine goes on from the step the run
    stopped at and now ends at step N, whatever budget the run had; a run that must end sooner or
    later than planned (the time one sitting leaves, a longer run) needs no new start."""
    if steps <= state["step"]:
        sys.exit(f"--steps {steps}: the run is already at step {state['step']}")
    log(f"the schedule now ends at step {steps} (was {state['total_steps']})")
    state["total_steps"] = steps
    state.pop("budget_seconds", None)


def build_student(settings: dict, classes: int):
    """The student a run's settings describe -> (module, its config as the model files keep it)."""
    if settings.get("model", "raster") == "strokes":
        convs = [[int(v) for v in c.split(":")] for c in str(settings["convs"]).split(",")]
        cfg = {"convs": convs, "hidden": int(settings["hidden"]), "lstm_layers": int(settings["lstm_layers"]),
               "dropout": float(settings["dropout"])}
        return StrokeRNN(classes, **cfg), cfg
    cfg = {"widths": [int(w) for w in str(settings["widths"]).split(",")], "fc": int(settings["fc"]),
           "dropout": float(settings["dropout"]), "input_dropout": 0.0}
    channels = raster_channels(settings)
    if channels != ("ink",):
        cfg["channels"] = list(channels)
    return RasterCNN(classes, **cfg), cfg


def raster_channels(settings: dict) -> tuple[str, ...]:
    """The raster planes a run's student reads (runs from before ``--channels`` read the ink alone)."""
    return tuple(str(settings.get("channels") or "ink").split(","))


def pick_device(name: str) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        sys.exit("--device cuda: no CUDA device is available")
    return torch.device(name)


PRECISIONS = ("auto", "fp32", "bf16")
PRECISION_HELP = "the training steps' arithmetic; default auto: bf16 on CUDA and on CPUs with native bf16 (AVX-512 BF16, AMX), else fp32"


def cpu_has_native_bf16() -> bool:
    """Whether this CPU multiplies bf16 in hardware (AVX-512 BF16 or AMX): there bf16 convolutions
    run about twice as fast as fp32 ones; elsewhere PyTorch emulates them, slower than fp32."""
    return torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()


def resolve_precision(device: torch.device, precision: str = "auto") -> str:
    """``auto`` as bf16 on CUDA and on a CPU with native bf16, fp32 on any other CPU; the others as given."""
    if precision != "auto":
        return precision
    return "bf16" if device.type == "cuda" or cpu_has_native_bf16() else "fp32"


def autocast_on(device: torch.device, precision: str = "auto"):
    """A maker of the training steps' autocast context: bf16 or none, as ``resolve_precision`` says."""
    enabled = resolve_precision(device, precision) == "bf16"
    return lambda: torch.autocast(device.type, dtype=torch.bfloat16, enabled=enabled)


RUN_SETTINGS = ("model", "widths", "channels", "fc", "convs", "hidden", "lstm_layers", "dropout", "batch", "lr", "warmup", "seed",
                "bitmap_share", "partial_share", "partial_alpha", "boost_cap", "alpha", "temperature", "teacher", "teacher_dir", "index")
"""What a run is: fixed at its start, whatever a resuming command line says."""
NEWER_RUN_SETTINGS = {"channels": None, "partial_share": TensorAugment.p_partial, "partial_alpha": None}
"""Run settings that older runs' run.json lack, with what those runs trained with."""
SITTING_DEFAULTS = {"device": "auto", "precision": "auto", "threads": None, "checkpoint_minutes": 5.0, "eval_every": 500,
                    "val_limit": 20000}
"""How one sitting runs, with the defaults of a new run: a resumed run keeps its last sitting's unless told otherwise."""


def settle_settings(args, run_dir: Path, resuming: bool, rank: int):
    """Fills ``args`` for this sitting: a resumed run's own settings from its run.json, the
    sitting's from the command line where given, else from the last sitting, else the defaults
    (a run started with ``--threads 1`` beside other work must not resume on every core). Rank 0
    records them in run.json, with the sitting's PyTorch version and the settings older runs lack."""
    saved = json.loads((run_dir / "run.json").read_text()) if resuming else {}
    for key in RUN_SETTINGS if resuming else ():
        setattr(args, key, saved.get(key, NEWER_RUN_SETTINGS[key]) if key in NEWER_RUN_SETTINGS else saved[key])
    for key, default in SITTING_DEFAULTS.items():
        if getattr(args, key) is None:
            setattr(args, key, saved.get(key, default))
    if rank == 0:
        record = {**saved, **{k: getattr(args, k) for k in (*NEWER_RUN_SETTINGS, *SITTING_DEFAULTS)}} if resuming else vars(args)
        if resuming and saved.get("torch", torch.__version__) != torch.__version__:
            log(f"warning: the run's last sitting ran PyTorch {saved['torch']}, this one {torch.__version__}")
        write_run_record(run_dir, record | {"torch": torch.__version__})


def write_run_record(run_dir: Path, record: dict):
    """Replaces run.json whole (other ranks may be reading it)."""
    partial = run_dir / "run.json.partial"
    partial.write_text(json.dumps(record, indent=1) + "\n")
    partial.replace(run_dir / "run.json")


def train(args):
    world, rank = int(os.environ.get("WORLD_SIZE", "1")), int(os.environ.get("RANK", "0"))
    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    resuming = args.resume and (run_dir / "ckpt.pt").exists()
    if rank == 0:
        warn_if_torch_differs()
    settle_settings(args, run_dir, resuming, rank)
    device = pick_device(args.device)
    if device.type == "cuda":
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = True
    if args.threads:
        torch.set_num_threads(args.threads)
    if world > 1:
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    torch.manual_seed(args.seed + rank)
    gen = torch.Generator().manual_seed(args.seed * 1000 + rank)
    index = DrawingIndex(Path(args.index))
    samplers = {p: BalancedSampler(np.asarray(index[p].class_offsets), rank, world, args.boost_cap)
                for p in ("train", "bitmaps-train") if len(index[p])}
    model, cfg = build_student(vars(args), len(index.classes))
    sequences = args.model == "strokes"
    if args.warm_start and not resuming:
        warm_start(model, args.warm_start)
    model = model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    state = {"step": 0, "total_steps": args.steps, "seconds": 0.0, "samples": 0, "history": [],
             "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu", "world": world}
    channels = raster_channels(vars(args))
    teacher, teacher_planes = None, None  # built before the generators are restored: building it draws random numbers
    if args.teacher:
        teacher = Teacher(Path(args.teacher_dir), args.teacher).to(device)
        if teacher.labels != index.classes:
            sys.exit("--teacher: its labels are not the index's classes in the same order")
        if not sequences:
            missing = [c for c in teacher.raster_channels if c not in channels]
            if missing:
                sys.exit(f"--teacher reads raster planes the student is not given: {', '.join(missing)}")
            teacher_planes = [channels.index(c) for c in teacher.raster_channels]
    if resuming:
        state = load_checkpoint(run_dir, model, opt, gen, rank, device)
        log(f"resumed {run_dir} at step {state['step']}/{state['total_steps']}")
        if args.steps and args.steps != state["total_steps"]:
            reschedule(state, args.steps)
            if rank == 0:  # run.json says the length the run now has
                write_run_record(run_dir, json.loads((run_dir / "run.json").read_text()) | {"steps": args.steps})
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
    precision = resolve_precision(device, args.precision)
    autocast = autocast_on(device, precision)
    val_inputs = validation_inputs(index, device, args.val_limit, sequences, channels) \
        if rank == 0 and args.eval_every else {}
    per_rank = args.batch // world
    n_bitmaps = int(round(per_rank * args.bitmap_share)) if "bitmaps-train" in samplers and not sequences else 0
    aug = TensorAugment(p_partial=args.partial_share)
    stop = {"signal": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(signal=True))
    module = model.module if hasattr(model, "module") else model
    macs = f"{module.macs():,} MACs" if not sequences else f"{module.macs_per_step():,} MACs per step"
    log(f"{sum(p.numel() for p in module.parameters()):,} parameters, {macs}, {cfg}; "
        f"{world} process(es) on {state['device']} ({precision}), "
        f"batch {args.batch} ({n_bitmaps * world} bitmaps)"
        + (f"; teacher {teacher.description}" if teacher else "")
        + (f"; weights from {args.warm_start}" if args.warm_start and not resuming else ""))
    started, last_save, window, window_seconds = time.time(), time.time(), [], 0.0  # the losses and step time since the last log
    seconds_before = state["seconds"]
    if not resuming and args.minutes:
        state["budget_seconds"] = args.minutes * 60.0
    mark = None  # (step, time) where the pace is measured from, after the first steps' warm-up
    overdue = False  # a twentieth of the budget has passed since the mark (rank 0's clock, agreed by all)
    while state["total_steps"] is None or state["step"] < state["total_steps"]:
        t0 = time.time()
        if state.get("budget_seconds") and mark is None and state["step"] >= min(10, args.timing_steps // 3):
            mark = (state["step"], time.time())
        elif state.get("budget_seconds") and mark and (state["step"] - mark[0] >= args.timing_steps or overdue) and \
                (state["total_steps"] is None or state["seconds"] < state["budget_seconds"] / 2):
            # a budget in time: steps left = time left / the recent pace (other work on the device changes
            # it), re-measured in the budget's first half so that the schedule's end stays smooth
            pace = (time.time() - mark[1]) / (state["step"] - mark[0])
            total = torch.tensor([state["step"] + int((state["budget_seconds"] - state["seconds"]) / pace)])
            if world > 1:
                dist.broadcast(total, 0)
            if state["total_steps"] is None:
                log(f"{pace * 1000:.0f} ms per step -> about {int(total)} steps in {state['budget_seconds'] / 60:.1f} min")
            state["total_steps"] = max(state["step"] + 1, int(total))
            mark = (state["step"], time.time())
        lr = lr_at(state["step"], state["total_steps"] or 10 ** 9, args.warmup, args.lr)
        for g in opt.param_groups:
            g["lr"] = lr
        images, labels, kinds, rows = make_batch(index, samplers, n_bitmaps, per_rank - n_bitmaps, gen, device, aug,
                                                 sequences, channels)
        with autocast():
            loss = step_loss(model, teacher, images, rows, labels, kinds, args.alpha, args.temperature, teacher_planes,
                             args.partial_alpha)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        state["step"] += 1
        state["samples"] += args.batch
        window.append(float(loss.detach()))
        window_seconds += time.time() - t0
        state.setdefault("losses", []).append(window[-1])
        state["seconds"] = seconds_before + (time.time() - started)
        done = state["total_steps"] is not None and state["step"] >= state["total_steps"]
        if args.eval_every and rank == 0 and (state["step"] % args.eval_every == 0 or done):
            res = evaluate(module, val_inputs, autocast)
            state["history"].append({"step": state["step"], "samples": state["samples"],
                                     "minutes": round(state["seconds"] / 60, 2), "val": res})
            log(f"step {state['step']}/{state['total_steps']} loss {np.mean(window):.3f} lr {lr:.2e} "
                f"{window_seconds / len(window) * 1000:.0f} ms/step | validation top-1 {res}")
            window, window_seconds = [], 0.0
        # slow steps (a CPU, a shared device) must not outlast a short budget before the pace is known
        overdue = rank == 0 and mark is not None and state["step"] > mark[0] and \
            time.time() - mark[1] >= state.get("budget_seconds", math.inf) / 20
        flags = torch.tensor([float(stop["signal"]), float(time.time() - last_save > args.checkpoint_minutes * 60),
                              float(args.stop_at_step is not None and state["step"] >= args.stop_at_step), float(overdue)])
        if world > 1:
            dist.all_reduce(flags, op=dist.ReduceOp.MAX)
        overdue = bool(flags[3])
        if done or flags[:3].any():
            save_checkpoint(run_dir, model, opt, state, gen, rank)
            last_save = time.time()
            if flags[0] or flags[2]:
                log(f"stopped at step {state['step']}; --resume continues")
                break
    if world > 1:
        dist.destroy_process_group()
    return state


# ------------------------------------------------------------------ export
def channel_list(text: str) -> str:
    """``ink,order`` -> itself, once checked: raster channels, each named once."""
    channels = [c.strip() for c in text.split(",")]
    if len(set(channels)) != len(channels) or not set(channels) <= set(CHANNELS):
        raise argparse.ArgumentTypeError(f"{text!r}: expected raster channels ({', '.join(CHANNELS)}), comma-separated")
    return ",".join(channels)


def views_list(text: str) -> tuple[str, ...]:
    """``original,mirrored`` -> its views, each named once and known to the model format."""
    views = tuple(v.strip() for v in text.split(","))
    if not views or len(set(views)) != len(views) or not set(views) <= {"original", "mirrored"}:
        raise argparse.ArgumentTypeError(f"{text!r}: expected original, mirrored or both, comma-separated")
    return views


def export_run(args):
    ck = torch.load(Path(args.run_dir) / "ckpt.pt", map_location="cpu", weights_only=False)
    state, saved = ck["state"], ck["run"]
    classes = DrawingIndex(Path(args.index or saved["index"])).classes
    model, cfg = build_student(saved, len(classes))
    model.load_state_dict(ck["model"])
    notes = (f"Trained by sketchwise_training.train_on_device for {state['step']:,} steps of {saved['batch']} "
             f"({state['samples'] / 1e6:.1f} M samples, {state['seconds'] / 60:.1f} min on {state['device']}, "
             f"{state['world']} process(es)); drawings rendered and augmented on the device; validation split by "
             f"key_id/index hash ({qd.VAL_FRACTION:.0%}).")
    extra = {"config": cfg, "steps": state["step"], "samples": state["samples"], "minutes": round(state["seconds"] / 60, 1),
             "device": state["device"], "history": state["history"][-1:]}
    if saved.get("warm_start"):
        extra["startedFrom"] = saved["warm_start"]
        notes += f" Started from the weights of {saved['warm_start']}."
    if saved.get("partial_share", TensorAugment.p_partial) != TensorAugment.p_partial:
        extra["partialShare"] = saved["partial_share"]
        notes += f" {saved['partial_share']:.0%} of the drawings cut to their first strokes."
    if saved.get("teacher"):
        extra["distilledFrom"] = {"models": saved["teacher"], "alpha": saved["alpha"], "temperature": saved["temperature"]}
        notes += f" Distilled from {saved['teacher']} (alpha {saved['alpha']}, T {saved['temperature']})."
        if saved.get("partial_alpha") is not None:
            extra["distilledFrom"]["partialAlpha"] = saved["partial_alpha"]
            notes += f" On cut drawings alpha {saved['partial_alpha']}."
    if isinstance(model, StrokeRNN):
        kind, extra["macsPerStep"] = "strokes", model.macs_per_step()
        what = f"Conv1d + BiLSTM over (dx, dy, pen-up) sequences, all {len(classes)} Quick, Draw! classes"
    else:
        kind, extra["macs"] = "raster", model.macs()
        what = f"28x28 CNN ({'/'.join(map(str, model.widths))} channels) over all {len(classes)} Quick, Draw! classes"
    return ex.export_model(model.eval(), Path(args.out), args.name, classes, kind, what, notes=notes,
                           extra_training=extra, views=args.views, version=args.version)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    i = sub.add_parser("index", help="build the on-disk index of the training split (once, with progress)")
    i.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    i.add_argument("--out", type=Path, required=True)
    i.add_argument("--classes-limit", type=int)
    i.add_argument("--per-class-limit", type=int)
    k = sub.add_parser("pack", help="an index as one compressed file, to carry to a training machine")
    k.add_argument("index", type=Path)
    k.add_argument("file", type=Path)
    LAST_SITTING = "; on --resume, the last sitting's"
    t = sub.add_parser("train", help="train a raster student (torchrun for several processes)")
    t.add_argument("--index", required=False, help="index folder or packed .npz")
    t.add_argument("--run-dir", required=True)
    t.add_argument("--resume", action="store_true", help="continue the run in --run-dir where it stopped")
    t.add_argument("--device", choices=("auto", "cpu", "cuda"), help="default auto (CUDA when present)" + LAST_SITTING)
    t.add_argument("--precision", choices=PRECISIONS, help=PRECISION_HELP + LAST_SITTING)
    t.add_argument("--model", choices=("raster", "strokes"), default="raster")
    t.add_argument("--widths", default="32,64,128", help="raster: channels of the conv blocks")
    t.add_argument("--fc", type=int, default=256, help="raster: width of the embedding layer")
    t.add_argument("--channels", default="ink", type=channel_list,
                   help="raster: the planes the student reads, comma-separated: ink, order (stroke-order shading)")
    t.add_argument("--convs", default="48:5,64:5,96:3", help="strokes: conv1d layers, channels:kernel")
    t.add_argument("--hidden", type=int, default=128, help="strokes: LSTM width")
    t.add_argument("--lstm-layers", type=int, default=3)
    t.add_argument("--dropout", type=float, default=0.2)
    t.add_argument("--batch", type=int, default=1024, help="global batch (split over the processes)")
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--weight-decay", type=float, default=5e-4)
    t.add_argument("--warmup", type=int, default=200)
    budget = t.add_mutually_exclusive_group()
    budget.add_argument("--steps", type=int, help="the run's length; with --resume, a new end for the schedule")
    budget.add_argument("--minutes", type=float, default=10.0, help="a budget in time, converted to steps as the pace is measured")
    t.add_argument("--timing-steps", type=int, default=100,
                   help="with --minutes: re-measure the pace after this many steps (or a twentieth of the budget)")
    t.add_argument("--checkpoint-minutes", type=float, help="default 5" + LAST_SITTING)
    t.add_argument("--stop-at-step", type=int, help="stop (with a checkpoint) at this step")
    t.add_argument("--warm-start", default=None,
                   help="start from these weights: an exported model's NAME.json or a run's ckpt.pt (same layers)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--bitmap-share", type=float, default=0.25)
    t.add_argument("--partial-share", type=float, default=TensorAugment.p_partial,
                   help="drawings cut to their first k strokes (k uniform), as the app sees them while drawing")
    t.add_argument("--partial-alpha", type=float, help="the teacher's weight on cut drawings (default --alpha)")
    t.add_argument("--boost-cap", type=float, default=1.0, help="classes rich in data drawn up to this many times more often")
    t.add_argument("--teacher", help="exported model name(s), as distill.Teacher takes them")
    t.add_argument("--teacher-dir", default="Models")
    t.add_argument("--alpha", type=float, default=0.7)
    t.add_argument("--temperature", type=float, default=3.0)
    t.add_argument("--eval-every", type=int, help="steps between validations, 0 for none; default 500" + LAST_SITTING)
    t.add_argument("--val-limit", type=int, help="validation drawings per part, at most; default 20000" + LAST_SITTING)
    t.add_argument("--threads", type=int, help="CPU threads; default all" + LAST_SITTING)
    e = sub.add_parser("export", help="a run's weights as model files")
    e.add_argument("--run-dir", required=True)
    e.add_argument("--name", required=True)
    e.add_argument("--out", type=Path, default=MODELS)
    e.add_argument("--index", help="the index, if not where the run read it")
    e.add_argument("--views", default="original,mirrored", type=views_list,
                   help="the test-time views the runtime averages: original, mirrored or both (the fast mode's "
                        "raster-cnn answers over the original alone)")
    e.add_argument("--version", default="1.0.0", help="the model's version (semantic): raise it when new weights replace "
                                                      "a shipped model's, so that model stores see the change")
    args = p.parse_args(argv)
    if args.command == "index":
        build_index(args.data, args.out, classes_limit=args.classes_limit, per_class_limit=args.per_class_limit, log=log)
    elif args.command == "pack":
        log(f"packed into {pack(args.index, args.file)} ({args.file.stat().st_size / 1e6:.1f} MB)")
    elif args.command == "train":
        if not args.index and not args.resume:
            p.error("train: --index is required for a new run")
        if args.steps:
            args.minutes = None
        train(args)
    else:
        for f in export_run(args):
            log(f"wrote {f}")


if __name__ == "__main__":
    main()
