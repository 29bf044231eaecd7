#!/usr/bin/env bash
# Installs what Sketchwise needs on Debian: the C libraries it links (Cairo, librsvg, gdk-pixbuf,
# FreeType, OpenBLAS, SQLite, zlib) and the suggestion library's pictures (Open Clip Art SVGs,
# Noto Color Emoji). With --test also what the tests need: the Python packages of training/
# (PyTorch CPU, pinned) and, for the browser tests, Chromium, chromedriver, Selenium and pytest
# for Debian's Python. Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(pkg-config libcairo2-dev librsvg2-dev libgdk-pixbuf-2.0-dev libfreetype-dev libopenblas-dev libsqlite3-dev
  zlib1g-dev openclipart-svg fonts-noto-color-emoji)
if [ "${1:-}" = "--test" ]; then
  packages+=(chromium chromium-driver python3-selenium python3-pytest)
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

if [ "${1:-}" = "--test" ]; then
  if ! python3 -c "import torch, numpy, pytest, h5py" 2>/dev/null; then
    echo "installing Python packages from training/requirements.txt"
    python3 -m pip install -q -r "$(dirname "$0")/../training/requirements.txt"
  fi
fi
