#!/usr/bin/env bash
# Every Python file of the repository (training/, bench/, Tests/, Fuzz/, scripts) against ruff.toml:
# pycodestyle errors and warnings and pyflakes (unused imports and names, undefined names, ...).
# ruff comes from PyPI, pinned in training/requirements.txt (scripts/install-deps.sh --test).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m ruff check .
