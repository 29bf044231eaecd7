"""Train, export and combine Sketchwise's recognisers from scratch.

    python3 -m sketchwise_training.train all        # raster CNN, stroke RNN, ensemble weight, fixtures
    python3 -m sketchwise_training.train raster     # only the raster CNN (exports raster-cnn.*)
    python3 -m sketchwise_training.train strokes    # only the stroke RNN (exports stroke-rnn.*)
    python3 -m sketchwise_training.train ensemble   # choose the weights on validation -> ensemble.json
                                         #   (--members raster-cnn,raster-cnn-wide,stroke-rnn)
    python3 -m sketchwise_training.train fixtures   # parity fixtures from the exported models
    python3 -m sketchwise_training.train export raster --checkpoint RUN/raster/ckpt.pt   # re-export
    ... --smoke   # 1 epoch on a tiny subset, exports to a temporary directory (< 2 min)

Options: --data (default ../shared/data), --out (default Models/), --run-dir (checkpoints,
default /tmp/sketchwise_runs), --minutes / --epochs (budget per model), --threads, --resume.
Training runs until the time budget: after the first epoch the number of epochs is fixed from
its duration and the learning rate follows a cosine over them; the final weights are exported
(no selection on the validation split).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from sketchwise_data import quickdraw as qd
from sketchwise_data.augment import AugmentConfig, bitmap_affine
from sketchwise_data.corpus import build_corpus

from . import MODELS, REPO as ROOT
from . import export as ex
from . import pipeline as pl
from .distill import Teacher, distillation_loss
from .models import RasterCNN, StrokeRNN, warm_start
from .torch_version import warn_if_torch_differs

FIXTURES = ROOT / "Tests" / "SketchwiseNNTests" / "Fixtures" / "parity"

RASTER_CFG = {"widths": [24, 48, 96], "fc": 256, "dropout": 0.2, "input_dropout": 0.05}
STROKE_CFG = {"convs": [[48, 5], [64, 5], [96, 3]], "hidden": 64, "lstm_layers": 3, "dropout": 0.3}


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _val_sets(corpus, mode, smoke, channels=("ink",), size=pl.BITMAP_SIZE):
    """Validation inputs for progress output (the full evaluation is evaluate.py)."""
    out = {}
    for name in ("raw", "simplified", "npz", "extra"):
        labels, drawings = corpus.val[name]
        if len(labels) == 0:
            continue
        x = pl.raster_inputs(drawings, channels, size) if mode == "raster" else pl.sequence_inputs(drawings)
        out[name] = (x, labels)
    if mode == "raster" and pl.reads_bitmaps(channels, size) and len(corpus.bitmap_val):
        n = len(corpus.bitmap_val) if not smoke else min(200, len(corpus.bitmap_val))
        out["bitmap"] = (pl.bitmap_inputs(corpus.bitmap_val[:n]), corpus.bitmap_val_labels[:n])
    return out


def _evaluate(model, mode, vsets):
    res = {}
    for name, (x, labels) in vsets.items():
        lp = pl.predict_raster(model, x) if mode == "raster" else pl.predict_strokes(model, x)
        res[name] = pl.topk(lp, labels)
    return res


def _fmt(res):
    return "  ".join(f"{k}: " + "/".join(f"{100 * v[t]:.1f}" for t in ("top1", "top3", "top5")) for k, v in res.items())


def train_model(mode, corpus, args, run_dir: Path):
    torch.manual_seed(args.seed)
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt_path = run_dir / "ckpt.pt"
    if mode == "raster":
        cfg = dict(RASTER_CFG)
        if args.raster_widths:
            cfg["widths"] = [int(v) for v in args.raster_widths.split(",")]
        if args.raster_channels:
            cfg["channels"] = args.raster_channels.split(",")
        if args.raster_size != pl.BITMAP_SIZE:
            cfg["size"] = args.raster_size
        model = RasterCNN(len(corpus.classes), **cfg)
        per_class, batch, base_lr, wd = args.per_class or 64, 128, 2e-3, 5e-4
    else:
        cfg = dict(STROKE_CFG)
        model = StrokeRNN(len(corpus.classes), **cfg)
        per_class, batch, base_lr, wd = args.per_class or 48, 64, 2e-3, 1e-4
    if args.smoke:
        per_class = 4
    boost = args.boost_cap if args.boost_cap is not None else (4.0 if mode == "raster" else 1.0)
    channels, size = cfg.get("channels", ["ink"]), cfg.get("size", pl.BITMAP_SIZE)
    with_bitmaps = mode == "raster" and pl.reads_bitmaps(channels, size)
    draws = pl.class_draws(corpus, per_class, with_bitmaps, boost)
    log_prior = np.log(np.maximum(draws, 1) / per_class)
    opt = torch.optim.AdamW(model.parameters(), lr=base_lr, weight_decay=wd)
    state = {"epoch": 0, "total_epochs": args.epochs, "step": 0, "history": [], "seconds": 0.0}
    if args.warm_start and not (args.resume and ckpt_path.exists()):
        warm_start(model, args.warm_start)
        state["cycle_lr"] = base_lr * args.restart_lr
        log(f"{mode}: weights from {args.warm_start} (added input channels start at zero), "
            f"peak lr {state['cycle_lr']:.1e}")
    if args.resume and ckpt_path.exists():
        ck = torch.load(ckpt_path, weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        state = ck["state"]
        log(f"{mode}: resumed from {ckpt_path} at epoch {state['epoch']}/{state['total_epochs']}")
        if state["total_epochs"] is not None and state["epoch"] >= state["total_epochs"]:
            # finished run: start a new cosine cycle (warm restart) for --minutes / --epochs more
            state["cycle_start_epoch"] = state["epoch"]
            state["cycle_start_step"] = state["step"]
            state["cycle_lr"] = base_lr * args.restart_lr
            state["total_epochs"] = None if args.epochs is None else state["epoch"] + args.epochs
            log(f"{mode}: new cosine cycle from epoch {state['epoch']}, peak lr {state['cycle_lr']:.1e}")
    teacher = None
    if args.teacher:
        teacher = Teacher(args.teacher_dir or args.out or MODELS, args.teacher)
        if teacher.labels != corpus.classes:
            sys.exit("--teacher: the teacher's labels are not the 345 classes in our order")
        if mode == "raster" and not set(teacher.raster_channels) <= set(channels):
            sys.exit(f"--teacher: the teacher reads {teacher.raster_channels}, the student only {channels}")
        alphas = f"alpha {args.distill_alpha}" + (f", on bitmaps {args.distill_alpha_bitmaps}" if with_bitmaps else "")
        log(f"{mode}: distilling from {teacher.description} ({alphas}, T {args.distill_temperature})")
        state["teacher"] = {"models": teacher.description, "alpha": args.distill_alpha, "temperature": args.distill_temperature}
        if with_bitmaps:
            state["teacher"]["alphaBitmaps"] = args.distill_alpha_bitmaps
    vsets = _val_sets(corpus, mode, args.smoke, channels, size)
    steps_per_epoch = math.ceil(int(draws.sum()) / batch)
    state.setdefault("log_prior", log_prior.tolist())
    log(f"{mode}: {sum(p.numel() for p in model.parameters())} parameters, {per_class} draws/class/epoch, "
        f"{steps_per_epoch} steps/epoch, config {cfg}")
    gen = torch.Generator().manual_seed(args.seed)
    while state["total_epochs"] is None or state["epoch"] < state["total_epochs"]:
        ep = state["epoch"]
        t0 = time.time()
        rows = pl.balanced_epoch(corpus, draws, args.seed, ep, use_bitmaps=with_bitmaps)
        ds = pl.EpochData(corpus, rows, mode, args.seed, ep, augment=True, cfg=AugmentConfig(p_mirror=args.mirror),
                          channels=channels, teacher_channels=teacher.raster_channels if teacher else (), size=size)
        dl = DataLoader(ds, batch_size=batch, shuffle=False, num_workers=args.workers,
                        collate_fn=pl.collate_raster if mode == "raster" else pl.collate_strokes)
        model.train()
        c_ep, c_step = state.get("cycle_start_epoch", 0), state.get("cycle_start_step", 0)
        peak = state.get("cycle_lr", base_lr)
        total_steps = ((state["total_epochs"] or 10 ** 6) - c_ep) * steps_per_epoch
        tot_loss, n_seen, correct = 0.0, 0, 0
        for bi, b in enumerate(dl):
            lr = pl.lr_at(state["step"] - c_step, total_steps, steps_per_epoch // 2 + 1, peak)
            for g in opt.param_groups:
                g["lr"] = lr
            if mode == "raster":
                x, y, isbm = b
                if isbm.any():
                    sel = isbm & (torch.rand(len(isbm), generator=gen) < 0.75)
                    if sel.any():
                        x[sel] = bitmap_affine(x[sel], generator=gen)
                    flip = isbm & (torch.rand(len(isbm), generator=gen) < args.mirror)
                    if flip.any():
                        x[flip] = torch.flip(x[flip], dims=[3])
                logits, _ = model(x)
                lengths = None
                images = x[:, [channels.index(c) for c in teacher.raster_channels]] if teacher else None
                alpha = torch.where(isbm, torch.tensor(args.distill_alpha_bitmaps), torch.tensor(args.distill_alpha))
            else:
                x, lengths, y, images = b
                logits, _ = model(x, lengths)
                alpha = torch.full((len(y),), args.distill_alpha)
            loss = F.cross_entropy(logits, y, label_smoothing=0.1, reduction="none")
            if teacher:  # per drawing: (1 - alpha) x labels + alpha x teacher
                kd = distillation_loss(logits, teacher.log_probs(images, x, lengths), args.distill_temperature, reduction="none")
                loss = (1 - alpha) * loss + alpha * kd
            loss = loss.mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            state["step"] += 1
            tot_loss += float(loss.detach()) * len(y)
            n_seen += len(y)
            correct += int((logits.argmax(1) == y).sum())
            if args.smoke and bi >= 8:
                break
            if bi % 50 == 0 and bi:
                log(f"{mode} epoch {ep + 1}: step {bi}/{steps_per_epoch} loss {tot_loss / n_seen:.3f} lr {lr:.2e}")
        dt = time.time() - t0
        state["seconds"] += dt
        state["threads"] = args.threads
        state["epoch"] += 1
        if state["total_epochs"] is None:
            budget = args.minutes * 60.0
            state["total_epochs"] = state["epoch"] - 1 + max(1, int(budget // dt))
            log(f"{mode}: epoch took {dt:.0f}s -> training {state['total_epochs']} epochs ({args.minutes} min)")
        last = state["epoch"] >= state["total_epochs"]
        msg = (f"{mode} epoch {state['epoch']}/{state['total_epochs']} {dt:.0f}s train loss {tot_loss / max(1, n_seen):.3f} "
               f"acc {100 * correct / max(1, n_seen):.1f}%")
        if last or state["epoch"] % args.eval_every == 0:
            res = _evaluate(model, mode, vsets)
            state["history"].append({"epoch": state["epoch"], "val": res})
            msg += "  | val top1/3/5 " + _fmt(res)
        log(msg)
        tmp = ckpt_path.with_suffix(".tmp")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "state": state, "cfg": cfg, "mode": mode}, tmp)
        os.replace(tmp, ckpt_path)
    return model, state, cfg


def export_trained(mode, model, state, cfg, corpus, out_dir: Path, args):
    tau = args.tau
    if state.get("log_prior") is not None and tau:
        # logit adjustment: remove tau x the log sampling prior of class-boosted training
        lp = torch.tensor(state["log_prior"], dtype=torch.float32)
        head = model.fc2 if mode == "raster" else model.fc
        with torch.no_grad():
            head.bias -= tau * lp
    threads = f" on {state['threads']} CPU threads" if "threads" in state else ""
    notes = (f"Trained by sketchwise_training.train {mode} for {state['epoch']} epochs ({state['seconds'] / 60:.1f} min{threads}); "
             f"validation split by key_id/index hash ({qd.VAL_FRACTION:.0%}); simplifier: {corpus.info.get('simplifier')}.")
    extra = {"config": cfg, "epochs": state["epoch"], "minutes": round(state["seconds"] / 60, 1),
             "logitAdjustmentTau": tau, "mirrorProbability": args.mirror}
    if "teacher" in state:
        extra["distilledFrom"] = state["teacher"]
        notes += f" Distilled from {state['teacher']['models']} (alpha {state['teacher']['alpha']}, T {state['teacher']['temperature']})."
    views = ("original", "mirrored") if args.mirror > 0 else ("original",)
    if mode == "raster":
        extra["macs"] = model.macs()
        planes = " on the ink and stroke-order planes" if "order" in model.channels else ""
        what = (f"{model.size}x{model.size} CNN ({'/'.join(map(str, model.widths))} channels){planes} "
                f"over all {len(corpus.classes)} Quick, Draw! classes")
        return ex.export_model(model, out_dir, args.name or "raster-cnn", corpus.classes, "raster", what, notes=notes,
                               extra_training=extra, views=views)
    extra["macsPerStep"] = model.macs_per_step()
    return ex.export_model(model, out_dir, args.name or "stroke-rnn", corpus.classes, "strokes",
                           f"Conv1d + BiLSTM over (dx, dy, pen-up) sequences, all {len(corpus.classes)} Quick, Draw! classes",
                           notes=notes, extra_training=extra, views=views)


# ------------------------------------------------------------------ ensemble
#: The shares of each drawing's strokes the ensemble's weights are also chosen on: the app guesses
#: after every stroke, and `sketchwise eval --prefixes` scores these.
PREFIX_SHARES = (0.5, 0.75)


def strokes_kept(share: float, count: int) -> int:
    """How many of ``count`` strokes a prefix of ``share`` keeps: ceil(share x count), at least one
    (Swift's ``EvaluationReport.PrefixScore.strokesKept``)."""
    return min(count, max(1, math.ceil(share * count - 1e-9)))


def stroke_val_logprobs(models_dir: Path, corpus, members, subsets=("raw", "simplified", "npz"),
                        prefixed=("raw", "simplified"), shares=PREFIX_SHARES):
    """Answers of the exported members (run from the files, views averaged) on the stroke
    validation subsets, and on those of ``prefixed`` cut to each share of their strokes ->
    {subset or "subset@share": ({member: log-probabilities}, labels)}."""
    from .evaluate import member_log_probs
    models = {m: ex.SpecModel(models_dir, m) for m in members}
    out = {}
    for name in subsets:
        labels, drawings = corpus.val[name]
        if len(labels) == 0:
            continue
        cuts = {name: drawings}
        if name in prefixed:
            cuts |= {f"{name}@{share}": [d[:strokes_kept(share, len(d))] for d in drawings] for share in shares}
        for key, cut in cuts.items():
            out[key] = ({m: member_log_probs(model, cut) for m, model in models.items()}, np.asarray(labels))
    return out


def choose_weights(lps, members, step: float = 0.05) -> tuple[list[float], dict]:
    """Weights (multiples of ``step`` summing to 1) maximising top-1 (ties: top-5) of the
    weighted mean of the members' log-probabilities over the validation subsets of ``lps`` pooled,
    each class counting once: the pooled subsets hold a few classes many times over (eye and
    mouth are half of simplified, npz has four classes), and a plain mean would reward their priors.

    Every combination is scored exactly (six members at 0.05 are 53,130), from the true class's
    rank: a class ahead of it (or tied) in every member is ahead in every mean, one behind in every
    member never is; only the classes ahead in some members are weighed, per combination."""
    y = torch.from_numpy(np.concatenate([v[1] for v in lps.values()])).long()
    stacked = torch.stack([torch.from_numpy(np.concatenate([v[0][m] for v in lps.values()])).float() for m in members])
    n, classes = stacked.shape[1:]
    diff = stacked - stacked[:, torch.arange(n), y][:, :, None]  # [members, drawings, classes]: score - true class's
    ahead = diff >= 0
    always = ahead.all(0)
    ahead_always = always.sum(1) - 1  # the true class itself left out
    pairs = (ahead.any(0) & ~always).nonzero()  # (drawing, class) ahead in some members only
    pairs = pairs[ahead_always[pairs[:, 0]] < 5]  # (a drawing with 5 always ahead is missed at every k)
    pair_diff = diff[:, pairs[:, 0], pairs[:, 1]]  # [members, pairs]
    counts = torch.bincount(y, minlength=classes).float()
    share = 1.0 / (counts[y] * float((counts > 0).sum()))  # a drawing's part of the class-balanced mean
    units = int(round(1 / step))
    combos = list(weight_splits(len(members), units))
    batch = max(1, 2 ** 24 // max(1, len(pairs)))
    best, table = None, {}
    for first in range(0, len(combos), batch):
        chunk = combos[first:first + batch]
        w = torch.tensor(chunk, dtype=torch.float32) / units
        sometimes = ((w @ pair_diff) >= 0).float()
        ranks = ahead_always + torch.zeros(len(chunk), n).index_add_(1, pairs[:, 0], sometimes)
        tops = {f"top{k}": ((ranks < k).float() @ share).tolist() for k in (1, 3, 5)}
        for i, combo in enumerate(chunk):
            key = tuple(c / units for c in combo)
            table[key] = {k: v[i] for k, v in tops.items()}
            if best is None or (tops["top1"][i], tops["top5"][i]) > best[0]:
                best = ((tops["top1"][i], tops["top5"][i]), list(key))
    return best[1], table


def weight_splits(k: int, units: int):
    """Every way to share ``units`` among ``k`` members, as k-tuples of counts, first member's share rising slowest."""
    if k == 1:
        yield (units,)
        return
    for first in range(units + 1):
        for rest in weight_splits(k - 1, units - first):
            yield (first,) + rest


def bitmap_val_logprobs(models_dir: Path, corpus, members):
    """Answers of the members that read Google's bitmaps on the bitmap validation set, in the
    shape of ``stroke_val_logprobs`` (empty when no member reads them or there are none)."""
    from .evaluate import bitmap_log_probs
    answers = bitmap_log_probs({m: ex.SpecModel(models_dir, m) for m in members}, corpus)
    return {"bitmap": answers} if answers else {}


def run_ensemble(models_dir: Path, corpus, members):
    """Writes ensemble.json: drawing weights chosen on the pooled stroke validation sets, whole and
    cut to their first strokes (``PREFIX_SHARES``), and bitmap weights (over the members that read
    bitmaps) on the bitmap validation set."""
    torch.set_num_threads(1)  # one drawing at a time: more threads only add overhead
    lps = stroke_val_logprobs(models_dir, corpus, members)
    w, table = choose_weights(lps, members)
    top = sorted(table.items(), key=lambda kv: (-kv[1]["top1"], -kv[1]["top5"]))[:5]
    log("ensemble: best pooled stroke-validation top-1 (each class once) by weights " + ", ".join(members) + ": " +
        "  ".join("/".join(f"{v:.2f}" for v in k) + f" {100 * r['top1']:.1f}" for k, r in top))
    spec = {"members": list(members), "weights": [round(v, 2) for v in w]}
    bitmaps = bitmap_val_logprobs(models_dir, corpus, members)
    if bitmaps:
        readers = list(bitmaps["bitmap"][0])
        bw, btable = choose_weights(bitmaps, readers)
        spec["bitmapWeights"] = [round(bw[readers.index(m)], 2) if m in readers else 0.0 for m in members]
        log(f"ensemble: bitmap weights {spec['bitmapWeights']}, bitmap validation top-1 {100 * btable[tuple(bw)]['top1']:.1f}")
    (Path(models_dir) / "ensemble.json").write_text(json.dumps(spec) + "\n")
    log(f"ensemble: weights {spec['weights']} -> {Path(models_dir) / 'ensemble.json'}")
    return spec


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.set_defaults(smoke=False, fixtures=None, name=None)  # what the commands without these options read
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # the options of several commands, by what they are about
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    common.add_argument("--out", type=Path, default=None, help="export directory (default Models/)")
    common.add_argument("--threads", type=int, default=None,
                        help="torch threads (default 2; 1 for --smoke; use 1 on a busy machine)")
    training = argparse.ArgumentParser(add_help=False)
    training.add_argument("--smoke", action="store_true", help="1 epoch on a tiny subset, export to a temp dir")
    training.add_argument("--run-dir", type=Path, default=Path("/tmp/sketchwise_runs"))
    training.add_argument("--minutes", type=float, default=30.0, help="training budget per model")
    training.add_argument("--epochs", type=int, default=None, help="fixed epoch count (overrides --minutes)")
    training.add_argument("--per-class", type=int, default=None, help="draws per class per epoch")
    training.add_argument("--eval-every", type=int, default=5)
    training.add_argument("--workers", type=int, default=1)
    training.add_argument("--seed", type=int, default=0)
    training.add_argument("--boost-cap", type=float, default=None,
                          help="max oversampling of data-rich classes (default 4 raster, 1 strokes)")
    training.add_argument("--raster-widths", default=None,
                          help="raster conv widths, e.g. 32,64,128 (default 24,48,96; a resumed run must give its own)")
    training.add_argument("--raster-channels", default=None,
                          help="raster input channels: ink (default) or ink,order (adds stroke-order shading)")
    training.add_argument("--raster-size", type=int, default=pl.BITMAP_SIZE,
                          help="raster input side in pixels (default 28; other sizes train without the 28x28 bitmaps)")
    training.add_argument("--warm-start", type=Path, default=None,
                          help="start from the weights of another run's ckpt.pt or an exported model's NAME.json (a new run only)")
    training.add_argument("--teacher", default=None,
                          help="also learn a teacher's answers: `ensemble` (ensemble.json) or model names, each with an "
                               "optional weight (doodlenet:0.7,raster-cnn:0.3); imported models too")
    training.add_argument("--teacher-dir", type=Path, default=None, help="where the teacher's files are (default --out)")
    training.add_argument("--distill-alpha", type=float, default=0.5, help="weight of the teacher's loss (vs labels)")
    training.add_argument("--distill-alpha-bitmaps", type=float, default=0.2,
                          help="raster: weight of the teacher's loss on Google's bitmaps (their labels are plentiful)")
    training.add_argument("--distill-temperature", type=float, default=2.0, help="softening of both answers")
    training.add_argument("--resume", action="store_true",
                          help="continue from RUN_DIR/<model>/ckpt.pt; a finished run gets a new cosine cycle")
    training.add_argument("--restart-lr", type=float, default=0.5, help="peak lr of a new cycle or a warm start, relative")
    exported = argparse.ArgumentParser(add_help=False)
    exported.add_argument("--mirror", type=float, default=0.5,
                          help="probability of training on the left-right mirror image (the export then lists both views)")
    exported.add_argument("--tau", type=float, default=0.0,
                          help="logit adjustment at export: subtract tau x log sampling prior (0 keeps the prior)")
    named = argparse.ArgumentParser(add_help=False)
    named.add_argument("--name", default=None,
                       help="exported model name (default raster-cnn / stroke-rnn), e.g. a further ensemble member")
    ensemble = argparse.ArgumentParser(add_help=False)
    ensemble.add_argument("--members", default="raster-cnn,stroke-rnn",
                          help="ensemble members (model names in the export directory)")
    fixtures = argparse.ArgumentParser(add_help=False)
    fixtures.add_argument("--fixtures", type=Path, default=None,
                          help="parity fixture directory (default Tests/SketchwiseNNTests/Fixtures/parity)")

    sub.add_parser("all", parents=[common, training, exported, ensemble, fixtures],
                   help="raster CNN, stroke RNN, ensemble weights, fixtures")
    sub.add_parser("raster", parents=[common, training, exported, named], help="only the raster CNN (exports raster-cnn.*)")
    sub.add_parser("strokes", parents=[common, training, exported, named], help="only the stroke RNN (exports stroke-rnn.*)")
    sub.add_parser("ensemble", parents=[common, ensemble], help="choose the members' weights on validation -> ensemble.json")
    sub.add_parser("fixtures", parents=[common, fixtures], help="parity fixtures from the exported models")
    e = sub.add_parser("export", parents=[common, exported, named], help="export a training checkpoint again")
    e.add_argument("which", choices=["raster", "strokes"], help="the checkpoint's model")
    e.add_argument("--checkpoint", type=Path, required=True, help="RUN_DIR/<model>/ckpt.pt")
    return ap


def main(argv=None):
    ap = parser()
    args = ap.parse_args(argv)
    warn_if_torch_differs()
    if args.threads is None:
        args.threads = 1 if args.smoke else 2
    torch.set_num_threads(args.threads)
    if not (args.data / "quickdraw" / "categories.txt").exists():
        sys.exit(f"no Quick, Draw! data under {args.data}/quickdraw (use --data)")
    if args.smoke:
        args.epochs = 1
        args.eval_every = 1
        if args.out is None:
            args.out = Path(tempfile.mkdtemp(prefix="sketchwise_smoke_"))
        if args.out.resolve() == MODELS.resolve():
            sys.exit("--smoke never writes to Models/")
        args.run_dir = args.out / "runs"
        args.resume = False
        if args.fixtures is None:
            args.fixtures = args.out / "parity"
    out = args.out or MODELS
    fixtures = args.fixtures or FIXTURES
    t0 = time.time()
    log(f"data {args.data}, export to {out}")
    corpus = build_corpus(args.data, classes_limit=None, per_class_limit=3 if args.smoke else None, log=log,
                          use_cache=True)
    log(f"split sizes: {corpus.sizes()}")
    if args.command == "export":
        ck = torch.load(args.checkpoint, weights_only=False)
        mode = ck["mode"]
        if mode != args.which:
            sys.exit(f"{args.checkpoint}: a {mode} checkpoint, not {args.which}")
        model = (RasterCNN if mode == "raster" else StrokeRNN)(len(corpus.classes), **ck["cfg"])
        model.load_state_dict(ck["model"])
        model.eval()
        for p in export_trained(mode, model, ck["state"], ck["cfg"], corpus, out, args):
            log(f"exported {p} ({p.stat().st_size} bytes)")
        return
    for mode in ("raster", "strokes"):
        if args.command in (mode, "all"):
            model, state, cfg = train_model(mode, corpus, args, args.run_dir / mode)
            model.eval()
            for p in export_trained(mode, model, state, cfg, corpus, out, args):
                log(f"exported {p} ({p.stat().st_size} bytes)")
    if args.command in ("ensemble", "all"):
        run_ensemble(out, corpus, args.members.split(","))
    if args.command in ("fixtures", "all"):
        from . import fixtures as fx
        for p in fx.write_fixtures(out, fixtures):
            log(f"fixture {p} ({p.stat().st_size} bytes)")
    log(f"done in {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
