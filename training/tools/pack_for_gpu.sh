#!/usr/bin/env bash
# Packs what a lent GPU machine needs to train into a git-ignored folder that the device tool
# carries (the machine cannot see ../shared):
#
#   training/tools/pack_for_gpu.sh [DATA]              # DATA defaults to ../shared/data
#       .gpu/: the recognition students' training split in one compressed file (about 27 MB) and
#       the teacher, DoodleNet, in the model format (never committed).
#       Then, on the device:  MINUTES=7 bash training/tools/train_students_gpu.sh   (carry [".gpu"])
#   training/tools/pack_for_gpu.sh --embedding [DATA]
#       .gpu-embedding/data/: the sketch embedding's drawings (about 33 MB): the Omniglot stroke
#       zips and unlabelled drawings, Quick, Draw!'s simplified drawings and class list.
#       Then, on the device:  MINUTES=7 bash training/tools/train_embedding_gpu.sh   (carry [".gpu-embedding"])
set -euo pipefail
cd "$(dirname "$0")/../.."
embedding=0
if [ "${1:-}" = --embedding ]; then embedding=1; shift; fi
DATA=${1:-../shared/data}
ignore() { grep -qx "/$1/" .git/info/exclude 2>/dev/null || echo "/$1/" >>.git/info/exclude; }
if [ "$embedding" = 1 ]; then
  ignore .gpu-embedding
  out=.gpu-embedding/data
  rm -rf "$out"
  mkdir -p "$out/omniglot" "$out/quickdraw"
  cp "$DATA"/omniglot/{strokes_background_small1.zip,strokes_background_small2.zip,omniglot-unlabelled-stroke3.npz,LICENSE} \
    "$out/omniglot/"
  cp -r "$DATA"/quickdraw/{categories.txt,DATA-LICENSE.txt,simplified,simplified-extra} "$out/quickdraw/"
  du -sh .gpu-embedding
  exit 0
fi
INDEX=${INDEX:-/tmp/sketchwise-index}
export PYTHONPATH="$PWD/training${PYTHONPATH:+:$PYTHONPATH}"  # the training package, installed or not
mkdir -p .gpu
ignore .gpu
if [ ! -f "$INDEX/meta.json" ]; then
  python3 -m sketchwise_training.train_on_device index --data "$DATA" --out "$INDEX"
fi
python3 -m sketchwise_training.train_on_device pack "$INDEX" .gpu/qd-split.npz
python3 -m sketchwise_training.import_model "$DATA/../models/doodlenet/tfjs" --name doodlenet --out .gpu
du -sh .gpu
