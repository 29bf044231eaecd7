#!/usr/bin/env bash
# Swift runtime vs ONNX Runtime vs PyTorch on the same weights and inputs, one thread each.
# Dev-only: not part of the tests or CI. See bench/compare.py for what is measured and how.
#
#   bench/compare.sh [--models DIR | --random] [--raster NAME] [--rounds N] [--sketches N]
#
#   --models DIR   folder with raster-cnn.{json,safetensors} and stroke-rnn.{json,safetensors}
#                  (default: Models/ when both are there, else --random)
#   --raster NAME  time DIR/NAME.* as the raster model (default raster-cnn), e.g. a further
#                  member of the ensemble
#   --random       the architectures of sketchwise_training.train with random weights, in a temp folder
#   --wide W,W,W:FC  with --random: the raster model with these widths and embedding, e.g. 96,192,384:768
#   --kernels V    the Swift runtime's kernel variant: baseline, avx2 or avx512 (default: the widest
#                  this CPU runs)
#   --int8         also time the Swift runtime with int8 products (--dense-precision int8), and
#                  ONNX Runtime's own int8 (the faster of its dynamic and static quantization)
#   --rounds N     interleaved rounds, the median is reported (default 5)
#   --sketches N   real drawings timed (default 345: one per class)
#   --scratch PATH SwiftPM scratch path of the release build (default .build-bench; never the
#                  lead's .build)
#   --binary PATH  time this release sketchwise binary instead of building one (e.g. two builds
#                  compared, or one kept while the sources change)
#   --data DIR     Quick, Draw! raw ndjson folder (default ../shared/data/quickdraw/raw)
# Installs onnx and onnxruntime with pip when missing. Nothing is written into the repo but the
# scratch build folder; drawings and ONNX files go to a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."

models="" raster="raster-cnn" random=0 wide="" kernels=() rounds=5 int8=() sketches=345 scratch=".build-bench" binary="" data="../shared/data/quickdraw/raw"
while [ $# -gt 0 ]; do
    case "$1" in
        --models) models="$2"; shift 2 ;;
        --random) random=1; shift ;;
        --wide) wide="$2"; random=1; shift 2 ;;
        --raster) raster="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --kernels) kernels=(--kernels "$2"); shift 2 ;;
        --int8) int8=(--int8); shift ;;
        --sketches) sketches="$2"; shift 2 ;;
        --scratch) scratch="$2"; shift 2 ;;
        --binary) binary="$2"; shift 2 ;;
        --data) data="$2"; shift 2 ;;
        -h|--help) sed -n 2,25p "$0"; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done

python3 -c "import onnx, onnxruntime" 2>/dev/null || python3 -m pip install -q onnx onnxruntime

if [ -z "$binary" ]; then
    swift build -c release --scratch-path "$scratch" --product sketchwise >&2
    binary="$scratch/release/sketchwise"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/sketchwise-compare.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/models"
make_random=()
if [ -z "$models" ] && [ "$random" = 0 ] && [ -f Models/raster-cnn.json ] && [ -f Models/stroke-rnn.json ]; then
    models="Models"
fi
if [ -n "$models" ]; then
    # The timed pair, under the names the benchmark expects; the ensemble is just these two.
    for pair in "$raster:raster-cnn" "stroke-rnn:stroke-rnn"; do
        from="${pair%%:*}" to="${pair##*:}"
        for ext in json safetensors; do
            [ -f "$models/$from.$ext" ] || { echo "$models/$from.$ext is missing" >&2; exit 1; }
        done
        sed "s/\"name\": \"$from\"/\"name\": \"$to\"/" "$models/$from.json" > "$work/models/$to.json"
        ln -s "$(cd "$models" && pwd)/$from.safetensors" "$work/models/$to.safetensors"
    done
    echo '{"members": ["raster-cnn", "stroke-rnn"], "weights": [0.5, 0.5]}' > "$work/models/ensemble.json"
    echo "models: $models (raster: $raster)" >&2
else
    make_random=(--make-random)
    [ -z "$wide" ] || make_random+=(--raster-widths "${wide%%:*}" --raster-fc "${wide##*:}")
    echo "models: random weights, architectures of sketchwise_training.train${wide:+, raster widths:fc $wide}" >&2
fi

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
# the training package from this checkout, installed or not
PYTHONPATH="$PWD/training${PYTHONPATH:+:$PYTHONPATH}" python3 bench/compare.py --models "$work/models" "${make_random[@]}" --work "$work" --swift "$binary" "${kernels[@]}" "${int8[@]}" \
    --raw "$data" --rounds "$rounds" --sketches "$sketches"
