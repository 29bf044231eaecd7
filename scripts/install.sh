#!/usr/bin/env bash
# Installs Sketchwise under PREFIX (inside DESTDIR when set, for packaging):
#   PREFIX/bin/sketchwise                       the binary (BINARY, default: the release build)
#   PREFIX/share/sketchwise/web                 the web app and openapi.yaml
#   PREFIX/share/sketchwise/models              the bundled models and their model card
#   PREFIX/share/sketchwise/tables              curated tables (picture reviews, ImageNet → classes)
#   PREFIX/share/sketchwise/translations        the class names in each language (class-names/<tag>.tsv)
#   PREFIX/share/sketchwise/pictures            with --pictures: the OpenMoji, Lucide and Tabler line art,
#                                               and the doodles when they were drawn (scripts/install-doodles.sh)
#                                               from $SKETCHWISE_PICTURES (scripts/install-deps.sh)
#   PREFIX/share/sketchwise/photo-models        with --pictures: the photo model, imported at install
#                                               time (scripts/fetch-photo-model.sh), when it is there
# The binary finds all of it relative to itself, so it runs from any working folder.
# Usage: scripts/install.sh [--pictures]   (environment: PREFIX, DESTDIR, BINARY)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${PREFIX:-/usr/local}"
root="${DESTDIR:-}$prefix"
binary="${BINARY:-}"
if [ -z "$binary" ]; then
  swift build -c release --static-swift-stdlib --scratch-path .build-release --product sketchwise
  binary="$(swift build -c release --static-swift-stdlib --scratch-path .build-release --show-bin-path)/sketchwise"
fi
[ -x "$binary" ] || { echo "no binary at $binary" >&2; exit 1; }

install -d "$root/bin" "$root/share/sketchwise/web" "$root/share/sketchwise/models" "$root/share/sketchwise/tables" \
  "$root/share/sketchwise/translations/class-names" \
  "$root/share/doc/sketchwise"
install -m 755 "$binary" "$root/bin/sketchwise"
cp -R Sources/SketchwiseServer/Web/. "$root/share/sketchwise/web/"
install -m 644 Models/*.json Models/*.safetensors Models/MODEL_CARD.md "$root/share/sketchwise/models/"
install -m 644 Sources/SketchwiseLibrary/Resources/*.tsv "$root/share/sketchwise/tables/"
install -m 644 Sources/SketchwiseLocalization/Resources/class-names/* "$root/share/sketchwise/translations/class-names/"
for doc in README.md LICENSE CHANGELOG.md; do
  [ -f "$doc" ] && install -m 644 "$doc" "$root/share/doc/sketchwise/"
done
if [ "${1:-}" = "--pictures" ]; then
  pictures="${SKETCHWISE_PICTURES:-/usr/local/share/sketchwise/pictures}"
  for set in openmoji lucide tabler doodles; do
    source_folder="$(readlink -f "$pictures/$set" || true)"
    # The doodles come from ../shared/data (scripts/install-doodles.sh): a machine without it has none.
    [ "$set" = doodles ] && [ ! -d "$source_folder" ] && continue
    [ -d "$source_folder" ] || { echo "no $set pictures in $pictures (run scripts/install-deps.sh)" >&2; exit 1; }
    install -d "$root/share/sketchwise/pictures/$set"
    cp -R "$source_folder/." "$root/share/sketchwise/pictures/$set/"
    rm -f "$root/share/sketchwise/pictures/$set/.complete"
  done
  photo_models="${SKETCHWISE_PHOTO_MODELS:-/usr/local/share/sketchwise/photo-models}"
  if [ -f "$photo_models/efficientnet-lite0.json" ]; then
    install -d "$root/share/sketchwise/photo-models"
    install -m 644 "$photo_models/efficientnet-lite0.json" "$photo_models/efficientnet-lite0.safetensors" "$root/share/sketchwise/photo-models/"
  else
    echo "no photo model in $photo_models (scripts/fetch-photo-model.sh): photos left out" >&2
  fi
fi
echo "installed into $root"
