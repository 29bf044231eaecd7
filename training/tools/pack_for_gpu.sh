#!/usr/bin/env bash
# Packs what a lent GPU machine needs to train the students into .gpu/ (git-ignored, carried by the
# device tool): the training split in one compressed file (about 27 MB; the machine cannot see
# ../shared) and the teacher, DoodleNet, in the model format (never committed).
#
#   training/tools/pack_for_gpu.sh [DATA]        # DATA defaults to ../shared/data
#
# Then, on the device:  MINUTES=7 bash training/tools/train_students_gpu.sh   (carry [".gpu"])
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${1:-../shared/data}
INDEX=${INDEX:-/tmp/sketchwise-index}
export PYTHONPATH="$PWD/training${PYTHONPATH:+:$PYTHONPATH}"  # the training package, installed or not
mkdir -p .gpu
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
if [ ! -f "$INDEX/meta.json" ]; then
  python3 -m sketchwise_training.train_on_device index --data "$DATA" --out "$INDEX"
fi
python3 -m sketchwise_training.train_on_device pack "$INDEX" .gpu/qd-split.npz
python3 -m sketchwise_training.import_model "$DATA/../models/doodlenet/tfjs" --name doodlenet --out .gpu
du -sh .gpu
