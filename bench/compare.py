"""Swift runtime vs ONNX Runtime vs PyTorch, same weights, same inputs, one thread each.

Dev-only (run through bench/compare.sh; not part of the tests or CI).

* The PyTorch modules are rebuilt from ``sketchwise_training.models`` with the hyper-parameters read from
  the exported spec; the rebuilt module's ``spec_layers()`` must equal the spec's layers and the
  weights are loaded from the exported ``.safetensors`` (every parameter and buffer but
  ``num_batches_tracked``): the very tensors the Swift runtime reads. The modules are exported to
  ONNX from there, and every output of ONNX Runtime, PyTorch and the exported files' independent
  interpreter (``sketchwise_training.export.SpecModel``) is checked to agree before anything is timed.
* Inputs: real Quick, Draw! drawings (raw) picked from the data folder into a temporary ``.ndjson``
  file (never into the repo), prepared with the project's preprocessing
  (``training/sketchwise_data``: Google simplification, then the 28×28 raster recipe × scale, or the
  unpadded ``(Δx, Δy, pen-up)`` rows) — byte-identical to what the Swift side prepares from the same
  file in ``sketchwise bench``. The stroke model is also timed at T = maxLength on one fixed input:
  the prepared sequences concatenated in file order and cut there (as ``ModelBenchmark`` does).
* Timing: "inference only" per prepared input tensor. Swift: ``sketchwise bench --json`` (p50 over
  3 passes of every sketch). ONNX Runtime: ``run_with_iobinding`` on pre-bound inputs/outputs,
  ``intra_op_num_threads=1``, ``inter_op_num_threads=1``, sequential execution, all graph
  optimisations. PyTorch: eager module under ``inference_mode``, ``torch.set_num_threads(1)``.
  Each round runs Swift, then ORT and PyTorch interleaved input by input; the table shows the median
  over rounds of each round's p50.
* ``--int8`` adds the Swift runtime with int8 products and, as its peer, ONNX Runtime's own int8:
  the faster of its dynamic quantization and its static QDQ one (per-channel weights, activation
  ranges calibrated on the first 100 inputs), with how often its first class is PyTorch's.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

# the training package: pip install -e training (scripts/install-deps.sh --test); bench/compare.sh sets PYTHONPATH
from sketchwise_data import raster as qraster
from sketchwise_data import sequence as qsequence
from sketchwise_data.simplify import simplify_drawing
from sketchwise_training import export as ex
from sketchwise_training.models import RasterCNN, StrokeRNN

ROOT = Path(__file__).resolve().parent.parent
torch.set_num_threads(1)
try:
    torch.set_num_interop_threads(1)
except RuntimeError:
    pass


def log(msg: str):
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ models
def random_models(out: Path, raster_widths=None, raster_fc=None, seed: int = 0):
    """The architectures being trained (sketchwise_training.train's configs; the raster model's
    widths and fc as asked), random weights and batch-norm statistics, exported as the trainer
    would, plus an ensemble.json."""
    from sketchwise_training import train  # its configs only

    torch.manual_seed(seed)
    classes = (ROOT.parent / "shared/data/quickdraw/categories.txt")
    labels = classes.read_text().split("\n")[:345] if classes.exists() else [f"class {i}" for i in range(345)]
    labels = [l for l in labels if l] or [f"class {i}" for i in range(345)]

    def randomize_bn(m):
        for mod in m.modules():
            if hasattr(mod, "running_var") and hasattr(mod, "running_mean"):
                with torch.no_grad():
                    mod.running_mean.uniform_(-0.2, 0.2)
                    mod.running_var.uniform_(0.5, 2.0)
                    mod.weight.uniform_(0.5, 1.5)
                    mod.bias.uniform_(-0.1, 0.1)

    raster_cfg = dict(train.RASTER_CFG)
    if raster_widths:
        raster_cfg["widths"] = raster_widths
    if raster_fc:
        raster_cfg["fc"] = raster_fc
    raster = RasterCNN(len(labels), **raster_cfg).eval()
    strokes = StrokeRNN(len(labels), **train.STROKE_CFG).eval()
    randomize_bn(raster)
    randomize_bn(strokes)
    ex.export_model(raster, out, "raster-cnn", labels, "raster", "random weights (benchmark)")
    ex.export_model(strokes, out, "stroke-rnn", labels, "strokes", "random weights (benchmark)")
    (out / "ensemble.json").write_text(json.dumps({"members": ["raster-cnn", "stroke-rnn"], "weights": [0.5, 0.5]}) + "\n")


def load_module(models: Path, name: str):
    """The PyTorch module of sketchwise_training.models with the exported weights, and the spec."""
    spec = json.loads((models / f"{name}.json").read_text())
    layers = spec["layers"]
    n = len(spec["labels"])
    if spec["input"]["kind"] == "raster":
        convs = [l["params"]["outChannels"] for l in layers if l["type"] == "conv2d"]
        fc1 = next(l for l in layers if l["name"] == "fc1")
        r = spec["input"]["raster"]
        model = RasterCNN(n, widths=convs, fc=fc1["params"]["outFeatures"], size=r["size"], channels=r.get("channels", ["ink"]))
    else:
        convs = [(l["params"]["outChannels"], l["params"]["kernel"]) for l in layers if l["type"] == "conv1d"]
        lstms = [l for l in layers if l["type"] == "lstm"]
        model = StrokeRNN(n, convs=convs, hidden=lstms[0]["params"]["hiddenSize"], lstm_layers=len(lstms))
    if json.loads(json.dumps(model.spec_layers())) != layers:
        raise SystemExit(f"{name}.json: its layers are not those of sketchwise_training.models' module; cannot compare")
    tensors, _ = ex.read_safetensors(models / f"{name}.safetensors")
    state = model.state_dict()
    for key in state:
        if key.endswith("num_batches_tracked"):
            continue
        if key not in tensors:
            raise SystemExit(f"{name}.safetensors has no {key}")
        if tuple(tensors[key].shape) != tuple(state[key].shape):
            raise SystemExit(f"{name}.safetensors: {key} has shape {tensors[key].shape}, module {tuple(state[key].shape)}")
        state[key] = torch.from_numpy(tensors[key])
    model.load_state_dict(state)
    return model.eval(), spec


class StrokeInference(nn.Module):
    """StrokeRNN on one unpadded sequence ``[1, T, 3]`` (what the runtime computes: no mask, no
    packing); batch norms as ``nn.BatchNorm1d`` with the same statistics so that exporters and
    runtimes see (and fold) a plain conv + batchnorm."""

    def __init__(self, m: StrokeRNN):
        super().__init__()
        self.convs = nn.ModuleList()
        self.norms = nn.ModuleList()
        for i in range(1, len(m.convs) + 1):
            conv, mbn = getattr(m, f"conv{i}"), getattr(m, f"bn{i}")
            bn = nn.BatchNorm1d(conv.out_channels, eps=mbn.eps)
            bn.load_state_dict({"weight": mbn.weight, "bias": mbn.bias, "running_mean": mbn.running_mean,
                                "running_var": mbn.running_var, "num_batches_tracked": torch.tensor(0)})
            self.convs.append(conv)
            self.norms.append(bn)
        self.lstm, self.fc = m.lstm, m.fc
        self.eval()

    def forward(self, x):
        h = x.transpose(1, 2)
        for conv, bn in zip(self.convs, self.norms):
            h = F.relu(bn(conv(h)))
        out, _ = self.lstm(h.transpose(1, 2))
        s = out.sum(dim=1)
        return self.fc(s), F.normalize(s, dim=1)


def to_onnx(module: nn.Module, example: torch.Tensor, path: Path, dynamic_length: bool):
    axes = {"x": {1: "T"}} if dynamic_length else None
    kwargs = dict(input_names=["x"], output_names=["logits", "embedding"], opset_version=17, dynamic_axes=axes)
    try:
        torch.onnx.export(module, (example,), str(path), dynamo=False, **kwargs)
    except TypeError:
        torch.onnx.export(module, (example,), str(path), **kwargs)


def ort_session(path: Path):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def ort_int8_session(work: Path, name: str, inputs, module, examples):
    """ONNX Runtime's own int8 of a model, its best of two ways: dynamic quantization (int8
    weights, each call's activations quantized on the fly: ORT's way for LSTMs and dense layers)
    and static QDQ (per-channel int8 weights, activation ranges calibrated on ``inputs``: ORT's way
    for convolutions). Each is timed on ``examples`` here and the faster kept
    -> (session, how, top-1 agreement with ``module`` on ``examples``)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_dynamic, quantize_static

    class Calibration(CalibrationDataReader):
        def __init__(self):
            self.left = iter([{"x": x} for x in inputs])

        def get_next(self):
            return next(self.left, None)

    source = work / f"{name}.onnx"
    dynamic, static = work / f"{name}-int8-dynamic.onnx", work / f"{name}-int8-static.onnx"
    quantize_dynamic(str(source), str(dynamic), weight_type=QuantType.QInt8, per_channel=True)
    quantize_static(str(source), str(static), Calibration(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    best = None
    for how, path in (("dynamic", dynamic), ("static QDQ", static)):
        sess = ort_session(path)
        binds = ort_runner(sess, examples)
        time_ort(sess, binds, 1)  # warm up
        t = p(time_ort(sess, binds, 3), 0.5)
        log(f"{name}: ORT int8 {how}: p50 {t:.3f} ms on {len(examples)} inputs")
        if best is None or t < best[0]:
            best = (t, sess, how)
    with torch.inference_mode():
        agree = np.mean([int(np.argmax(best[1].run(None, {"x": x})[0]) == int(module(torch.from_numpy(x))[0].argmax()))
                         for x in examples])
    return best[1], best[2], float(agree)


# ------------------------------------------------------------------ inputs
def pick_drawings(raw: Path, out: Path, count: int):
    """`count` raw drawings, round-robin over the classes (sorted file names), to `out`."""
    files = sorted(raw.glob("*.ndjson"))
    if not files:
        raise SystemExit(f"no .ndjson drawings in {raw} (use --data)")
    lines = [f.read_text(encoding="utf-8").splitlines() for f in files]
    picked, k = [], 0
    while len(picked) < count and any(k < len(ls) for ls in lines):
        for ls in lines:
            if k < len(ls) and ls[k].strip() and len(picked) < count:
                rec = json.loads(ls[k])
                if rec.get("drawing") and any(len(s[0]) for s in rec["drawing"]):
                    picked.append(ls[k].strip())
        k += 1
    out.write_text("\n".join(picked) + "\n", encoding="utf-8")
    return len(picked)


def prepare(drawings: Path, raster_spec: dict, stroke_spec: dict):
    recs = [json.loads(l) for l in drawings.read_text(encoding="utf-8").splitlines() if l.strip()]
    simplified = [simplify_drawing(r["drawing"]) for r in recs]
    r = raster_spec["input"]["raster"]
    scale = np.float32(r["scale"])
    channels = r.get("channels", ["ink"])
    rasters = [(qraster.render_channels(d, r["size"], channels).astype(np.float32) * scale)[None] for d in simplified]
    s = stroke_spec["input"]["strokes"]
    seqs = [qsequence.encode_rows(d, s["maxLength"], s["normalization"]).astype(np.float32) for d in simplified]
    fixed = np.concatenate(seqs)[: s["maxLength"]]
    fixed = fixed if len(fixed) == s["maxLength"] else None
    return rasters, [q[None] for q in seqs], (None if fixed is None else fixed[None])


# ------------------------------------------------------------------ timing
def ort_runner(sess, inputs):
    """One IO binding per input (input and outputs pre-allocated): the timed call is just the run."""
    import onnxruntime as ort

    outs = {o.name: o for o in sess.get_outputs()}
    bindings = []
    for x in inputs:
        b = sess.io_binding()
        b.bind_ortvalue_input("x", ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(x)))
        for name in outs:
            b.bind_output(name)
        sess.run_with_iobinding(b)   # lets ORT allocate the outputs once ...
        for name, value in zip(outs, b.get_outputs()):
            b.bind_ortvalue_output(name, value)   # ... and reuse them
        bindings.append(b)
    return bindings


def time_pair(sess, bindings, module, tensors, passes: int):
    """ORT and PyTorch interleaved, input by input; milliseconds."""
    ort_t, pt_t = [], []
    clock = time.perf_counter_ns
    with torch.inference_mode():
        for _ in range(passes):
            for b, x in zip(bindings, tensors):
                t0 = clock()
                sess.run_with_iobinding(b)
                t1 = clock()
                module(x)
                t2 = clock()
                ort_t.append((t1 - t0) / 1e6)
                pt_t.append((t2 - t1) / 1e6)
    return ort_t, pt_t


def time_ort(sess, bindings, passes: int):
    """ORT alone, input by input; milliseconds."""
    times = []
    clock = time.perf_counter_ns
    for _ in range(passes):
        for b in bindings:
            t0 = clock()
            sess.run_with_iobinding(b)
            times.append((clock() - t0) / 1e6)
    return times


def p(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int((len(s) - 1) * q + 0.5))] if s else float("nan")


def ort_overhead(work: Path) -> float:
    """p50 of run_with_iobinding on a one-node Identity graph: the Python-call floor in ORT times."""
    import onnx
    from onnx import TensorProto, helper

    g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "id",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 345])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 345])])
    path = work / "identity.onnx"
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    sess = ort_session(path)
    import onnxruntime as ort

    b = sess.io_binding()
    b.bind_ortvalue_input("x", ort.OrtValue.ortvalue_from_numpy(np.zeros((1, 345), np.float32)))
    b.bind_output("y")
    sess.run_with_iobinding(b)
    b.bind_ortvalue_output("y", b.get_outputs()[0])
    t = []
    for _ in range(2000):
        t0 = time.perf_counter_ns()
        sess.run_with_iobinding(b)
        t.append((time.perf_counter_ns() - t0) / 1e6)
    return p(t, 0.5)


# ------------------------------------------------------------------ main
def cpu_description() -> str:
    """The CPU's model name and its vector instruction sets (from /proc/cpuinfo, where there is one),
    and OPENBLAS_CORETYPE when set: an absolute time holds only for that machine."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or platform.machine()
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    wanted = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni", "amx_tile", "asimd")
    flags = [f for f in fields.get("flags", fields.get("Features", "")).split() if f in wanted]
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    return (f"{fields.get('model name', platform.machine())}; {' '.join(flags)}"
            + (f"; OPENBLAS_CORETYPE={coretype}" if coretype else ""))


def check_same_weights(models, figures):
    """Prints the SHA-256 of the weights each side timed and stops unless the Swift side timed
    the very files ORT and PyTorch were made from."""
    for kind, name in (("raster", "raster-cnn"), ("strokes", "stroke-rnn")):
        ours = hashlib.sha256((models / f"{name}.safetensors").read_bytes()).hexdigest()
        swift = [f["sha256"] for f in figures[kind]["files"]]
        log(f"{name}: ORT and PyTorch from weights {ours[:16]}…, Swift timed {', '.join(h[:16] + '…' for h in swift)}")
        if swift != [ours]:
            raise SystemExit(f"the Swift side timed other weights for {name} than ORT and PyTorch; not comparing")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, required=True, help="folder with raster-cnn.*, stroke-rnn.*, ensemble.json")
    ap.add_argument("--make-random", action="store_true", help="first export random-weight models into --models")
    ap.add_argument("--raster-widths", type=lambda v: [int(w) for w in v.split(",")], help="with --make-random: e.g. 96,192,384")
    ap.add_argument("--raster-fc", type=int, help="with --make-random: the raster model's embedding width, e.g. 768")
    ap.add_argument("--raw", type=Path, default=ROOT.parent / "shared/data/quickdraw/raw")
    ap.add_argument("--work", type=Path, required=True, help="temporary folder (drawings, ONNX files)")
    ap.add_argument("--swift", type=Path, required=True, help="the release sketchwise binary")
    ap.add_argument("--sketches", type=int, default=345)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--passes", type=int, default=3, help="passes over the inputs per round (ORT/PyTorch)")
    ap.add_argument("--kernels", help="the Swift runtime's kernel variant (baseline, avx2, avx512; default: the widest)")
    ap.add_argument("--int8", action="store_true", help="also time the Swift runtime with int8 products")
    args = ap.parse_args()

    if args.make_random:
        args.models.mkdir(parents=True, exist_ok=True)
        random_models(args.models, args.raster_widths, args.raster_fc)
    args.work.mkdir(parents=True, exist_ok=True)
    drawings = args.work / "drawings.ndjson"
    n = pick_drawings(args.raw, drawings, args.sketches)
    log(f"{n} raw drawings from {args.raw} (round-robin over classes) -> {drawings}")

    raster, raster_spec = load_module(args.models, "raster-cnn")
    strokes, stroke_spec = load_module(args.models, "stroke-rnn")
    stroke_inf = StrokeInference(strokes)
    rasters, seqs, fixed = prepare(drawings, raster_spec, stroke_spec)
    lengths = [q.shape[1] for q in seqs]
    log(f"sequence lengths: median {statistics.median(lengths)}, min {min(lengths)}, max {max(lengths)}")

    to_onnx(raster, torch.from_numpy(rasters[0]), args.work / "raster-cnn.onnx", False)
    to_onnx(stroke_inf, torch.from_numpy(seqs[0]), args.work / "stroke-rnn.onnx", True)
    ort_r, ort_s = ort_session(args.work / "raster-cnn.onnx"), ort_session(args.work / "stroke-rnn.onnx")

    # Same weights, same function: ORT vs PyTorch vs the files' own interpreter.
    spec_r, spec_s = ex.SpecModel(args.models, "raster-cnn"), ex.SpecModel(args.models, "stroke-rnn")
    worst = 0.0
    with torch.inference_mode():
        for i in range(0, n, max(1, n // 10)):
            for sess, mod, spec, x in ((ort_r, raster, spec_r, rasters[i]), (ort_s, stroke_inf, spec_s, seqs[i])):
                a = sess.run(None, {"x": x})
                b = [t.numpy() for t in mod(torch.from_numpy(x))]
                c = spec.run(x[0])
                for got in (a[0][0], b[0][0]):
                    worst = max(worst, float(np.abs(got - c["logits"]).max()))
                for got in (a[1][0], b[1][0]):
                    worst = max(worst, float(np.abs(got - c["embedding"]).max()))
    log(f"outputs agree: ORT, PyTorch and the exported files' interpreter differ by at most {worst:.2e}")
    if worst > 1e-3:
        raise SystemExit("ONNX Runtime / PyTorch / exported model disagree; not timing")

    tr = [torch.from_numpy(x) for x in rasters]
    ts = [torch.from_numpy(x) for x in seqs]
    br, bs = ort_runner(ort_r, rasters), ort_runner(ort_s, seqs)
    bf = ort_runner(ort_s, [fixed]) if fixed is not None else None
    tf = [torch.from_numpy(fixed)] if fixed is not None else None
    overhead = ort_overhead(args.work)
    # With --int8, ONNX Runtime's own int8 too: like against like.
    ort8 = {}
    if args.int8:
        for key, name, xs, mod in (("raster", "raster-cnn", rasters, raster), ("strokes", "stroke-rnn", seqs, stroke_inf)):
            examples = xs[:: max(1, n // 50)]
            sess, how, agree = ort_int8_session(args.work, name, xs[:100], mod, examples)
            ort8[key] = (sess, ort_runner(sess, xs))
            log(f"{name}: ORT int8 timed as {how}; its first class is PyTorch's on {100 * agree:.0f} % of {len(examples)} inputs")
        if fixed is not None:
            ort8["strokes@T"] = (ort8["strokes"][0], ort_runner(ort8["strokes"][0], [fixed]))

    # The Swift columns: float32 products, and with --int8 also int8 ones.
    precisions = ["float32"] + (["int8"] if args.int8 else [])
    columns = ["swift"] + (["swift int8"] if args.int8 else [])
    rows = {k: {c: [] for c in columns + ["ort", "torch", "ort int8"]} for k in ("raster", "strokes", "strokes@T")}
    loads = []
    for r in range(args.rounds):
        loads.append(os.getloadavg()[0])
        for column, precision in zip(columns, precisions):
            cmd = [str(args.swift), "bench", "--models", str(args.models), "--data", str(drawings), "--limit", "10",
                   "--rounds", "1", "--model-sketches", str(n), "--dense-precision", precision, "--json"] + \
                (["--kernels", args.kernels] if args.kernels else [])
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed:\n{res.stderr}")
            report = json.loads(res.stdout)["models"]
            figures = {f["model"]: f for f in report["figures"]}
            if r == 0 and column == "swift":
                check_same_weights(args.models, figures)
                kernels = f"{report['kernels']} kernels (the widest this CPU runs: {report['widestKernels']})"
                if args.int8:
                    kernels += f"; int8 products {'with' if report['int8UsesVNNI'] else 'without'} VNNI"
                log(f"Swift runtime: {kernels}")
            rows["raster"][column].append(figures["raster"]["p50Inference"])
            rows["strokes"][column].append(figures["strokes"]["p50Inference"])
            if figures["strokes"].get("p50InferenceFixedLength") is not None:
                rows["strokes@T"][column].append(figures["strokes"]["p50InferenceFixedLength"])
        for key, sess, binds, mod, xs, passes in (("raster", ort_r, br, raster, tr, args.passes),
                                                  ("strokes", ort_s, bs, stroke_inf, ts, args.passes)) + \
                (() if bf is None else (("strokes@T", ort_s, bf, stroke_inf, tf, args.passes * max(100, n // 2)),)):
            time_pair(sess, binds[:20], mod, xs[:20], 1)   # warm up
            o, t = time_pair(sess, binds, mod, xs, passes)
            rows[key]["ort"].append(p(o, 0.5))
            rows[key]["torch"].append(p(t, 0.5))
            if key in ort8:
                sess8, binds8 = ort8[key]
                time_ort(sess8, binds8[:20], 1)  # warm up
                rows[key]["ort int8"].append(p(time_ort(sess8, binds8, passes), 0.5))
        log(f"round {r + 1}/{args.rounds}: " + ", ".join(
            f"{k} " + " ".join(f"{c} {v[c][-1]:.3f}" for c in columns + ["ort", "torch"] + (["ort int8"] if args.int8 else []))
            + " ms"
            for k, v in rows.items() if v["swift"]) + f" (load {loads[-1]:.2f})")

    T = stroke_spec["input"]["strokes"]["maxLength"]
    names = {"raster": "raster-cnn (28x28)", "strokes": f"stroke-rnn (real, T med {statistics.median(lengths):g})",
             "strokes@T": f"stroke-rnn (T={T} fixed)"}
    print(f"Inference only, 1 thread, ms, median over {args.rounds} rounds of each round's p50 "
          f"({n} real sketches; load avg during rounds {min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} cores; "
          f"Swift: {kernels})")
    print(f"CPU: {cpu_description()}")
    # "best": the ratio of each side's fastest round. A machine whose speed flips between states
    # can put a round's Swift and ORT timings in different states; over several rounds each side
    # most likely has one in the fast state, so this ratio compares like with like.
    int8_header = f" {'Swift int8':>10} {'int8/ORT':>9} {'best':>6} {'ORT int8':>9} {'int8/ORT int8':>14}" if args.int8 else ""
    print(f"{'model':<34} {'Swift p50':>10} {'ORT p50':>10} {'PyTorch p50':>12} {'Swift/ORT':>10} {'best':>6}{int8_header}")
    for k, v in rows.items():
        if not v["swift"]:
            continue
        s, o, t = (statistics.median(v[x]) for x in ("swift", "ort", "torch"))
        best_ort = min(v["ort"])
        int8 = ""
        if args.int8:
            q = statistics.median(v["swift int8"])
            q8 = statistics.median(v["ort int8"])
            int8 = f" {q:>10.3f} {q / o:>9.2f} {min(v['swift int8']) / best_ort:>6.2f} {q8:>9.3f} {q / q8:>14.2f}"
        print(f"{names[k]:<34} {s:>10.3f} {o:>10.3f} {t:>12.3f} {s / o:>10.2f} {min(v['swift']) / best_ort:>6.2f}{int8}")
    print("(best: each side's fastest round against the other's; this machine's speed may differ between a round's sides)")
    print(f"(ORT times include ~{overhead:.3f} ms of Python call overhead: run_with_iobinding on an Identity graph)")


if __name__ == "__main__":
    main()
