#!/usr/bin/env bash
# The attack suite of issue 14 (dev-only, not a test): starts a release `sketchwise serve` with its
# default limits and replays the findings (silent connections, slow loris, a flood of the
# costliest legal requests, malformed HTTP, oversized bodies) with bench/attack.py, which checks
# that /api/health answers within 1 s throughout. Exits 1 if it ever did not.
#
#   bench/attack.sh [--seconds 20] [--data-dir out/bench-server] [--binary PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=20
data_dir=out/bench-server
binary=
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --data-dir) data_dir=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
ulimit -n 20000 2>/dev/null || true
source bench/server.sh
serve_release "$binary" "$data_dir"
echo "server: pid $server, port $port, RSS $(ps -o rss= -p $server | awk '{printf "%.0f MiB", $1/1024}') at start"
status=0
python3 bench/attack.py --port "$port" --pid "$server" --seconds "$seconds" || status=$?
kill -0 "$server" 2>/dev/null || { echo "the server died:"; tail -20 "$log"; exit 1; }
echo "server still up; warnings it logged: $(grep -c -E "warning|error" "$log")"
grep -E "warning|error" "$log" | sort | uniq -c | sort -rn | head -5 || true
exit $status
