#!/usr/bin/env bash
# Installs what Sketchwise needs on Debian: the C libraries it links (Cairo, librsvg, FreeType,
# OpenBLAS, SQLite, zlib), the suggestion library's pictures (Open Clip Art SVGs, Noto Color
# Emoji) and, with --python, the Python packages of training/ (PyTorch CPU, pinned).
# Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(pkg-config libcairo2-dev librsvg2-dev libfreetype-dev libopenblas-dev libsqlite3-dev zlib1g-dev
  openclipart-svg fonts-noto-color-emoji)
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

if [ "${1:-}" = "--python" ]; then
  if ! python3 -c "import torch, numpy, pytest" 2>/dev/null; then
    echo "installing Python packages from training/requirements.txt"
    python3 -m pip install -q -r "$(dirname "$0")/../training/requirements.txt"
  fi
fi
