#!/usr/bin/env bash
# Load benchmark of `sketchwise serve` (dev-only, not a test): wrk on 127.0.0.1 against
# POST /api/suggest with real Quick, Draw! drawings, at 1, 8 and 64 connections; then the same
# with an empty sketch, the ceiling of the machine and wrk in the same run; then the server's
# resident memory after a minute of load. `--model` is the server's default model (`serve
# --model`: ensemble, raster, strokes or a model's name); `--dense-precision int8|float32` serves with those
# products (`serve --dense-precision`; default auto, the server's own); `--workers N` serves with N job threads (`serve --workers`;
# default: the server's own, one per core and one more); `--minute no` skips the minute;
# `--binary PATH` serves with that build instead of building `.build/release/sketchwise`.
#
# `--cluster yes` measures scale-out instead: scripts/cluster.sh (PostgreSQL, nginx) with one,
# then two replicas, each with a copy of DATA_DIR's index, and wrk through nginx at 64 connections
# with a mix of 70 % POST /api/suggest, 20 % POST /api/classify and 10 % POST /api/corrections
# (a write to PostgreSQL, as one user).
#
#   bench/load.sh [--model ensemble] [--dense-precision auto|float32|int8] [--workers N] [--duration 20] [--drawings 200] [--data-dir out/bench-server] [--minute no] [--binary PATH] [--cluster yes]
#
# Needs wrk (Debian package `wrk`) and a release build; builds the index on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=20
drawings=200
data_dir=out/bench-server
model=ensemble
precision=auto
workers=()
minute=yes
binary=
cluster=no
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration=$2; shift 2 ;;
    --drawings) drawings=$2; shift 2 ;;
    --data-dir) data_dir=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --dense-precision) precision=$2; shift 2 ;;
    --workers) workers=(--workers "$2"); shift 2 ;;
    --minute) minute=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --cluster) cluster=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
source bench/server.sh
binary=$(release_binary "$binary")
raw=../shared/data/quickdraw/raw
[ -d "$raw" ] || { echo "no drawings at $raw" >&2; exit 1; }

work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
# wrk's Lua script: one request body per real drawing, taken in turn by each connection.
python3 - "$raw" "$drawings" > "$work/suggest.lua" <<'PY'
import json, os, sys
folder, count = sys.argv[1], int(sys.argv[2])
files = sorted(f for f in os.listdir(folder) if f.endswith(".ndjson"))
bodies = []
for i, name in enumerate(files):
    with open(os.path.join(folder, name)) as lines:
        for line in lines:
            bodies.append(json.dumps({"strokes": json.loads(line)["drawing"]}))
            break
    if len(bodies) >= count:
        break
print("wrk.method = 'POST'")
print("wrk.headers['Content-Type'] = 'application/json'")
print("bodies = {" + ",".join("[==[" + b + "]==]" for b in bodies) + "}")
print("counter = 0")
print("request = function() counter = counter + 1; return wrk.format(nil, '/api/suggest', nil, bodies[counter % #bodies + 1]) end")
print("done = function(summary, latency, requests)")
print("  io.write(string.format('RESULT requests/s %.0f  p50 %.2f ms  p99 %.2f ms  errors %d\\n', summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))")
print("end")
PY
if [ "$cluster" = yes ]; then
  if [ ! -f "$data_dir/library.sqlite" ]; then  # one server builds the index the replicas copy
    start_server "$binary" "$data_dir" "$work/server.log" --model "$model"
    kill "$server"; wait "$server" || true
  fi
  # The mix: suggest, classify, and a correction kept for one user (Lua's math.random, seeded).
  sed -e "s|^request = .*|request = function() counter = counter + 1; local body = bodies[counter % #bodies + 1]; local r = math.random(10); if r <= 7 then return wrk.format(nil, '/api/suggest', nil, body) elseif r <= 9 then return wrk.format(nil, '/api/classify', nil, body) else return wrk.format(nil, '/api/corrections', {['Authorization'] = 'Bearer ' .. token, ['Content-Type'] = 'application/json'}, string.sub(body, 1, -2) .. ',\"label\":\"bench\"}') end end|" \
    "$work/suggest.lua" > "$work/mix.lua"
  postgres_dir=$(mktemp -d /tmp/sketchwise-bench-postgres.XXXXXX)  # reachable by the postgres user under root
  trap 'scripts/cluster.sh stop --dir "$work/cluster" >/dev/null 2>&1 || true; rm -rf "$work" "$postgres_dir"' EXIT
  nginx_port=$((20000 + RANDOM % 20000))
  for replicas in 1 2; do
    scripts/cluster.sh start --replicas "$replicas" --port "$nginx_port" --dir "$work/cluster" --binary "$binary" \
      --library "$data_dir/library.sqlite" --postgres-dir "$postgres_dir" --model "$model" > "$work/cluster.txt"
    token=$(curl -sf -X POST "http://127.0.0.1:$nginx_port/api/users" | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
    { echo "token = '$token'"; cat "$work/mix.lua"; } > "$work/mix-token.lua"
    sleep 5  # the library candidates are found in the background after start
    echo "== $replicas replica(s) behind nginx, 64 connections, 2 threads, ${duration}s, mix suggest/classify/corrections"
    wrk -t2 -c64 -d"${duration}s" --latency -s "$work/mix-token.lua" "http://127.0.0.1:$nginx_port" | grep -E "RESULT|Non-2xx|Socket errors" || true
    source "$work/cluster/cluster.env"
    echo "corrections stored: $(psql "$DATABASE_URL" -tAc 'SELECT count(*) FROM correction')"
    scripts/cluster.sh stop --dir "$work/cluster"
    rm -rf "$work/cluster"
  done
  exit 0
fi
# wrk is one client (127.0.0.1): its queue is the server's whole one, not the 32 a client gets,
# or most of 64 connections' requests would measure the per-client refusal (503 busy).
start_server "$binary" "$data_dir" "$work/server.log" --model "$model" --dense-precision "$precision" --queue-length-per-client 256 "${workers[@]}"
echo "server: pid $server, model $model, $precision, ${workers[*]:-default workers}, $(grep -c . "$work/server.log") log lines, $drawings distinct drawings"
for connections in 1 8 64; do
  threads=$((connections < 2 ? 1 : 2))  # wrk wants a connection per thread
  echo "== $connections connections, $threads threads, ${duration}s"
  wrk -t"$threads" -c"$connections" -d"${duration}s" --latency -s "$work/suggest.lua" "http://127.0.0.1:$port" | grep -E "RESULT|Non-2xx|Socket errors" || true
done
# The ceiling of this machine and wrk: the same requests with an empty sketch, which the server
# answers without recognition or pictures (HTTP, routing, JSON in and out only).
echo "== the HTTP stack alone (an empty sketch), 64 connections, 2 threads, ${duration}s"
sed -e 's|^bodies = .*|bodies = {[==[{"strokes": []}]==]}|' "$work/suggest.lua" > "$work/empty.lua"
wrk -t2 -c64 -d"${duration}s" --latency -s "$work/empty.lua" "http://127.0.0.1:$port" | grep -E "RESULT|Non-2xx|Socket errors" || true
[ "$minute" = yes ] || exit 0
echo "== a minute at 64 connections, then resident memory"
wrk -t2 -c64 -d60s -s "$work/suggest.lua" "http://127.0.0.1:$port" | grep RESULT || true
echo "server RSS: $(ps -o rss= -p $server | awk '{printf "%.1f MiB", $1/1024}')"
