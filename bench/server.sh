# Sourced by the bench scripts: starts `sketchwise serve` in the background and waits for it.
#
#   source bench/server.sh
#   start_server BINARY DATA_DIR LOG [serve options…]   # sets $server (pid) and $port
#
# The caller's EXIT trap should kill $server. The library index is built on first use of DATA_DIR.
start_server() {
  local binary=$1 data_dir=$2 log=$3
  shift 3
  port=$((20000 + RANDOM % 20000))
  "$binary" serve --port "$port" --data-dir "$data_dir" "$@" > "$log" 2>&1 &
  server=$!
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && break
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
