# Sourced by the bench scripts: starts `sketchwise serve` in the background and waits for it.
#
#   source bench/server.sh
#   start_server BINARY DATA_DIR LOG [serve options…]   # sets $server (pid) and $port
#   serve_release BINARY DATA_DIR                       # the same with a temporary $log, stopped on exit
#
# The caller's EXIT trap should kill $server. The library index is built on first use of DATA_DIR.
start_server() {
  local binary=$1 data_dir=$2 log=$3
  shift 3
  port=$((20000 + RANDOM % 20000))
  "$binary" serve --port "$port" --data-dir "$data_dir" "$@" > "$log" 2>&1 &
  server=$!
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/api/ready" >/dev/null 2>&1 && break
    kill -0 "$server" 2>/dev/null || { cat "$log"; return 1; }
    sleep 0.5
  done
  sleep 5  # the library candidates are found in the background after start
}

# Builds the release binary unless one is given; prints its path.
release_binary() {
  if [ -n "${1:-}" ]; then echo "$1"; return; fi
  swift build -c release --product sketchwise >/dev/null
  echo .build/release/sketchwise
}

# Builds the release binary unless BINARY is given, starts it with its log in a temporary $log,
# and kills it (and removes the log) when the calling script exits.
serve_release() {
  local binary
  binary=$(release_binary "$1")
  log=$(mktemp)
  trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
  start_server "$binary" "$2" "$log"
}
