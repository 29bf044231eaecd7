#!/usr/bin/env bash
# The soak of issue 14 (dev-only, not a test): a release `sketchwise serve` with its default
# limits under wrk at saturation with mixed valid and invalid requests, pictures and live
# WebSocket sessions (bench/soak.py), then the errors, p99 and resident memory over time.
#
#   bench/soak.sh [--seconds 600] [--connections 64] [--data-dir out/bench-server] [--binary PATH]
#
# Needs wrk and ../shared/data; exits 1 on an unexpected answer or a growing or large RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=600
connections=64
data_dir=out/bench-server
binary=
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --data-dir) data_dir=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
source bench/server.sh
serve_release "$binary" "$data_dir"
echo "server: pid $server, port $port"
status=0
python3 bench/soak.py --port "$port" --pid "$server" --seconds "$seconds" --connections "$connections" || status=$?
kill -0 "$server" 2>/dev/null || { echo "the server died:"; tail -20 "$log"; exit 1; }
echo "server log: $(grep -c -E " (warning|error|critical) " "$log") warnings and errors"
grep -E " (warning|error|critical) " "$log" | cut -c26- | sort | uniq -c | sort -rn | head -5 || true
exit $status
