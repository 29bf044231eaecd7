#!/usr/bin/env bash
# The attack suite of issues 14 and 34 (dev-only, not a test): starts a release `sketchwise serve`
# with its default limits and replays the findings with bench/attack.py (silent connections, slow
# loris, a flood of the costliest legal requests, malformed HTTP, oversized bodies; a byte before
# the WebSocket 101, decompression and scan bombs to /api/photo, thousands of idle live sockets,
# a 415 answered before its body, one client's flood against another's latency, user and
# correction floods, NUL and huge labels, HEAD/TRACE/CONNECT), which checks that /api/health
# answers within 100 ms throughout and each phase's own check. Every attack comes from and goes
# to loopback (127.0.0.0/8); each phase is --seconds long or bounded by a count (about 6 minutes
# in all at 20 s). Run it before and after a change to the server. Exits 1 if a phase failed or
# the server died (its log's tail is printed).
#
#   bench/attack.sh [--seconds 20] [--data-dir out/bench-server] [--binary PATH] [--phases NAME,NAME]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=20
data_dir=out/bench-server
binary=
phases=
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --data-dir) data_dir=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --phases) phases=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
ulimit -n 20000 2>/dev/null || true
source bench/server.sh
serve_release "$binary" "$data_dir"
echo "server: pid $server, port $port, RSS $(ps -o rss= -p $server | awk '{printf "%.0f MiB", $1/1024}') at start"
status=0
python3 bench/attack.py --port "$port" --pid "$server" --seconds "$seconds" ${phases:+--phases "$phases"} || status=$?
kill -0 "$server" 2>/dev/null || { echo "the server died:"; tail -20 "$log"; exit 1; }
echo "server still up; warnings it logged: $(grep -c -E "warning|error" "$log")"
grep -E "warning|error" "$log" | sort | uniq -c | sort -rn | head -5 || true
exit $status
