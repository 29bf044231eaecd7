#!/usr/bin/env bash
# Trains sketch-embedding members side by side on one lent GPU machine (the device tool), from the
# drawings `training/tools/pack_for_gpu.sh --embedding` packs into .gpu-embedding/ (carried):
#
#   # device run, carry [".gpu-embedding"]:  MINUTES=7 bash training/tools/train_embedding_gpu.sh
#
# Each member trains for $MINUTES in its own process (drawings augmented on its CPU core, rendered
# and learnt on the GPU: `embedding train --device cuda`, tensor rendering), keeps the Korean
# alphabet out for validation, and is exported under $OUT/NAME/ with its log $OUT/NAME.log (small:
# fetched back). Back here: `python3 -m sketchwise_training.embedding combine` joins the chosen
# ones (by their validation_* figures), and `sketchwise fewshot` measures them (docs/shortcuts.md).
# The package is not installed there: PYTHONPATH names training/. Keep MINUTES two minutes under
# the call's limit (loading and the final evaluation take about a minute).
set -euo pipefail
CARRY=${CARRY:-.gpu-embedding}
OUT=${OUT:-/tmp/embedding-out}
MINUTES=${MINUTES:-6.5}
DEVICE=${DEVICE:-cuda}
# one member per line: its name, then its options for sketchwise_training.embedding train
MEMBERS=${MEMBERS:-"base --widths 64,128,256,256 --seed 1
wide --widths 96,192,384,384 --seed 2
wider --widths 128,256,512,512 --seed 3 --batch 256"}
export PYTHONUNBUFFERED=1
export PYTHONPATH="$(cd "$(dirname "$0")/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"  # training/
mkdir -p "$OUT"
if [ "$DEVICE" = cuda ]; then nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; fi
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'

train() {  # name options...
  local name=$1; shift
  python3 -m sketchwise_training.embedding train --data "$CARRY/data" --device "$DEVICE" --out "$OUT/$name" \
    --unlabelled omniglot-unlabelled-stroke3.npz --validation-alphabets Korean --pooled-blocks 3 "$@"
}

train smoke --smoke >"$OUT/smoke.log" 2>&1 || { tail -n 30 "$OUT/smoke.log"; exit 1; }
member() {  # name options...: trains for $MINUTES
  # shellcheck disable=SC2086  # EXTRA: options, split into words
  train "$@" --minutes "$MINUTES" ${EXTRA:-}
}
source "$(dirname "$0")/side_by_side.sh"
run_side_by_side member "$MEMBERS"
