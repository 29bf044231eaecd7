#!/usr/bin/env bash
# Draws the library's doodles (sketchwise index doodles): each class's most typical Quick, Draw!
# drawings of the training split, as line pictures, into $SKETCHWISE_PICTURES/doodles (default
# /usr/local/share/sketchwise/pictures/doodles). They come from the data in
# $SKETCHWISE_SHARED_DATA (default ../shared/data beside the repository), so nothing is committed;
# without that data it says so and leaves the doodle source out. Safe to run again: it draws them
# once, and again when the binary's bundled raster model or the doodles' naming (the stamp's
# prefix: files named by key_id since 2) changes.
# Usage: scripts/install-doodles.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:?usage: scripts/install-doodles.sh BINARY}
data="${SKETCHWISE_SHARED_DATA:-../shared/data}/quickdraw"
pictures="${SKETCHWISE_PICTURES:-/usr/local/share/sketchwise/pictures}"
target="$pictures/doodles"
if [ ! -d "$data/simplified" ] && [ ! -d "$data/raw" ]; then
  echo "doodles: no Quick, Draw! data at $data; the library has no doodles (classes no picture set draws get none)"
  exit 0
fi
stamp="2-$(sha256sum Models/raster-cnn.safetensors | cut -c1-16)"
if [ "$(cat "$target/.complete" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
sudo_cmd=""
mkdir -p "$target" 2>/dev/null && [ -w "$target" ] || sudo_cmd="sudo"
folders=()
for kind in simplified raw; do [ -d "$data/$kind" ] && folders+=(--data "$data/$kind"); done
echo "doodles: drawing each class's most typical drawings from $data into $target"
$sudo_cmd "$binary" index doodles "${folders[@]}" --out "$target" --no-model-store
echo "$stamp" | $sudo_cmd tee "$target/.complete" >/dev/null
