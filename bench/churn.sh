#!/usr/bin/env bash
# WebSocket churn (issue 14, dev-only, not a test): a release `sketchwise serve`, then rounds of
# WebSocket connections opened and closed (bench/churn.py), and the memory each round keeps.
#
#   bench/churn.sh [--connections 20000] [--rounds 3] [--data-dir out/bench-server] [--binary PATH]
#
# Exits 1 on a failed connection or when later rounds keep more than 1 MiB per 10,000 connections.
set -euo pipefail
cd "$(dirname "$0")/.."
connections=20000
rounds=3
data_dir=out/bench-server
binary=
while [ $# -gt 0 ]; do
  case "$1" in
    --connections) connections=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --data-dir) data_dir=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
source bench/server.sh
serve_release "$binary" "$data_dir"
echo "server: pid $server, port $port"
python3 bench/churn.py --port "$port" --pid "$server" --connections "$connections" --rounds "$rounds"
