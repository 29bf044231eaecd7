#!/usr/bin/env bash
# Trains raster students side by side on one lent GPU machine (the device tool), from a carried
# folder that holds the packed training split and the teacher's model files:
#
#   python3 -m sketchwise_training.train_on_device pack INDEX .gpu/qd-split.npz   # (training/tools/pack_for_gpu.sh)
#   cp /tmp/imported/doodlenet.{json,safetensors} .gpu/        # never committed
#   # device run, carry [".gpu"]:  MINUTES=6.5 bash training/tools/train_students_gpu.sh
#
# Each student trains for $MINUTES in its own process (they share the GPU, so each re-measures its
# pace as it goes); a 3-step smoke run first makes a broken setup fail in seconds. Each student's
# log and, the moment it ends, its checkpoint without the optimiser (model, state, run settings)
# are written under $OUT: `python3 -m sketchwise_training.train_on_device export --run-dir DIR` reads
# it as DIR/ckpt.pt. The package is not installed there: PYTHONPATH names training/.
# Keep MINUTES two minutes under the call's limit.
set -euo pipefail
CARRY=${CARRY:-.gpu}
OUT=${OUT:-/tmp/students-out}
MINUTES=${MINUTES:-6.5}
DEVICE=${DEVICE:-cuda}
RUNS=${RUNS:-/tmp/student-runs}
# one student per line: its name, then its options for sketchwise_training.train_on_device train.
# The shipped members were trained with data-rich classes drawn up to 8x as often (round 3's
# --boost-cap 8), which the npz, extra and bitmap validation sets (few classes, many drawings)
# reward; mid tries it.
STUDENTS=${STUDENTS:-"fast --widths 32,64,128 --fc 256
mid --widths 64,128,256 --fc 512 --boost-cap 8
wide --widths 96,192,384 --fc 768
strokes --model strokes --convs 48:5,64:5,96:3 --hidden 128 --lstm-layers 3"}
export PYTHONUNBUFFERED=1
export PYTHONPATH="$(cd "$(dirname "$0")/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"  # training/
mkdir -p "$OUT" "$RUNS"
if [ "$DEVICE" = cuda ]; then nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; fi
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'

train() {  # name options...
  local name=$1; shift
  python3 -m sketchwise_training.train_on_device train --index "$CARRY/qd-split.npz" --teacher doodlenet \
    --teacher-dir "$CARRY" --device "$DEVICE" --run-dir "$RUNS/$name" --threads 3 "$@"
}

train smoke --steps 3 --eval-every 3 --val-limit 300 --batch 256
train smoke-strokes --model strokes --steps 3 --eval-every 3 --val-limit 300 --batch 256
slim() {  # a run's checkpoint without the optimiser, into $OUT as soon as the run ends
  python3 - "$RUNS/$1/ckpt.pt" "$OUT/$1.pt" <<'PY'
import sys, torch
ck = torch.load(sys.argv[1], map_location="cpu", weights_only=False)
ck.pop("opt")
torch.save(ck, sys.argv[2])
PY
}

student() {  # name options...: trains for $MINUTES, then hands the checkpoint back
  # shellcheck disable=SC2086  # EXTRA: options, split into words
  train "$@" --minutes "$MINUTES" --eval-every 500 ${EXTRA:-} && slim "$1"
}
source "$(dirname "$0")/side_by_side.sh"
run_side_by_side student "$STUDENTS"
