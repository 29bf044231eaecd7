#!/usr/bin/env bash
# Sketchwise scaled out on one machine, all on 127.0.0.1 and from Debian's packages
# (apt-get install postgresql nginx): PostgreSQL (scripts/postgres.sh) holding users, tokens,
# shortcuts, corrections and A/B counts; N `sketchwise serve` replicas, each with its own data
# folder and library index; nginx in front, spreading requests over the replicas and moving them
# to the others when one is down.
#
#   scripts/cluster.sh start [--replicas 2] [--port 8080] [--dir /tmp/sketchwise-cluster]
#                            [--binary .build/debug/sketchwise] [--library out/test-server/library.sqlite]
#                            [--postgres-dir DIR/postgres] [serve options…]
#   scripts/cluster.sh stop [--dir DIR]
#
# start prints the address of nginx, the database URL and each replica's port and pid (also in
# DIR/cluster.env, which stop reads). --library copies a built index into every replica (SQLite's
# online backup); without it each replica builds its own on first start, which takes minutes.
# Options it does not know go to every `sketchwise serve`. Under root, PostgreSQL runs as the
# `postgres` user, so --postgres-dir must be reachable by it (e.g. a new folder in /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."

command=${1:-}
[ $# -gt 0 ] && shift
replicas=2
port=8080
dir=/tmp/sketchwise-cluster
binary=.build/debug/sketchwise
library=
postgres_dir=
serve_options=()
while [ $# -gt 0 ]; do
  case "$1" in
    --replicas) replicas=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --library) library=$2; shift 2 ;;
    --postgres-dir) postgres_dir=$2; shift 2 ;;
    *) serve_options+=("$1"); shift ;;
  esac
done

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop() {
  [ -f "$dir/cluster.env" ] || return 0
  # shellcheck disable=SC1091
  source "$dir/cluster.env"
  [ -n "${NGINX_PID:-}" ] && kill "$NGINX_PID" 2>/dev/null || true
  for pid in ${REPLICA_PIDS:-}; do kill "$pid" 2>/dev/null || true; done
  for pid in ${REPLICA_PIDS:-}; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  [ -n "${POSTGRES_DIR:-}" ] && scripts/postgres.sh stop "$POSTGRES_DIR"
  rm -f "$dir/cluster.env"
}

# nginx_conf PORT UPSTREAM-PORT…: nginx in front of the replicas, everything under $dir/nginx.
nginx_conf() {
  local listen=$1
  shift
  mkdir -p "$dir/nginx/tmp"
  {
    cat <<EOF
daemon off;
worker_processes 1;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
events { worker_connections 2048; }
http {
    access_log off;
    client_body_temp_path $dir/nginx/tmp/body;
    proxy_temp_path $dir/nginx/tmp/proxy;
    fastcgi_temp_path $dir/nginx/tmp/fastcgi;
    uwsgi_temp_path $dir/nginx/tmp/uwsgi;
    scgi_temp_path $dir/nginx/tmp/scgi;
    client_max_body_size 16m;
    # Bodies and answers stay in memory: under root nginx's workers run as another user, who
    # may not reach temporary files inside a private cluster folder.
    client_body_buffer_size 16m;
    proxy_max_temp_file_size 0;
    map \$http_upgrade \$connection_upgrade { default upgrade; '' ''; }
EOF
    # Requests reuse kept-alive connections; /api/live gets a fresh one (the replicas upgrade
    # only the first request of a connection to a WebSocket).
    for name in sketchwise sketchwise_live; do
      echo "    upstream $name {"
      for upstream in "$@"; do echo "        server 127.0.0.1:$upstream max_fails=1 fail_timeout=5s;"; done
      [ "$name" = sketchwise ] && echo "        keepalive 64;"
      echo "    }"
    done
    cat <<EOF
    server {
        listen 127.0.0.1:$listen;
        proxy_http_version 1.1;
        proxy_connect_timeout 2s;
        proxy_read_timeout 120s;
        # A replica that refuses or drops the connection: the request goes to the next one.
        # nginx does so for GET, HEAD, PUT, DELETE… always, and for POST and PATCH only when
        # nothing was sent yet (connection refused); a POST cut off mid-way answers 502.
        proxy_next_upstream error timeout http_502 http_503;
        proxy_next_upstream_tries 3;
        # nginx passes a level's proxy_set_header only to locations that set none of their own, so
        # each location names every header: without X-Forwarded-For every client would be nginx.
        location /api/live {
            proxy_pass http://sketchwise_live;
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$connection_upgrade;
            proxy_read_timeout 3600s;
        }
        location / {
            proxy_pass http://sketchwise;
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header Connection "";
        }
    }
}
EOF
  } > "$dir/nginx/nginx.conf"
}

case "$command" in
  start)
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "cluster.sh: nginx is missing (apt-get install nginx)" >&2; exit 1; }
    [ -x "$binary" ] || { echo "cluster.sh: no binary at $binary (swift build --product sketchwise, or --binary)" >&2; exit 1; }
    stop
    mkdir -p "$dir"
    postgres_dir=${postgres_dir:-$dir/postgres}
    echo "POSTGRES_DIR='$postgres_dir'" > "$dir/cluster.env"
    database=$(scripts/postgres.sh start "$postgres_dir" "$(free_port)") || { stop; exit 1; }
    pids=()
    ports=()
    for i in $(seq 1 "$replicas"); do
      data="$dir/replica-$i"
      mkdir -p "$data"
      if [ -n "$library" ] && [ ! -f "$data/library.sqlite" ]; then
        python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' "$library" "$data/library.sqlite"
      fi
      replica_port=$(free_port)
      # nginx on 127.0.0.1 is the only client: its X-Forwarded-For names the real one.
      "$binary" serve --host 127.0.0.1 --port "$replica_port" --data-dir "$data" --database "$database" --trusted-proxies 127.0.0.1 \
        "${serve_options[@]}" \
        > "$data/server.log" 2>&1 &
      pids+=($!)
      ports+=("$replica_port")
    done
    {
      echo "POSTGRES_DIR='$postgres_dir'"
      echo "DATABASE_URL='$database'"
      echo "NGINX_PORT=$port"
      echo "REPLICA_PORTS='${ports[*]}'"
      echo "REPLICA_PIDS='${pids[*]}'"
    } > "$dir/cluster.env"
    for i in "${!ports[@]}"; do
      for _ in $(seq 1 1200); do
        curl -sf "http://127.0.0.1:${ports[$i]}/api/ready" >/dev/null 2>&1 && break
        kill -0 "${pids[$i]}" 2>/dev/null || { echo "replica $((i + 1)) exited:" >&2; tail -n 30 "$dir/replica-$((i + 1))/server.log" >&2; stop; exit 1; }
        sleep 0.5
      done
    done
    nginx_conf "$port" "${ports[@]}"
    nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
    "$nginx_bin" -c "$dir/nginx/nginx.conf" -p "$dir/nginx" -e "$dir/nginx/error.log" > "$dir/nginx/stdout.log" 2>&1 &
    echo "NGINX_PID=$!" >> "$dir/cluster.env"
    for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/api/ready" >/dev/null 2>&1 && break; sleep 0.1; done
    curl -sf "http://127.0.0.1:$port/api/ready" >/dev/null || { echo "nginx did not start:" >&2; cat "$dir/nginx/error.log" >&2; stop; exit 1; }
    echo "nginx:    http://127.0.0.1:$port"
    echo "database: $database"
    for i in "${!ports[@]}"; do echo "replica $((i + 1)): http://127.0.0.1:${ports[$i]} (pid ${pids[$i]}, log $dir/replica-$((i + 1))/server.log)"; done
    ;;
  stop)
    stop
    ;;
  *)
    echo "usage: scripts/cluster.sh start|stop [options] (see the top of the script)" >&2
    exit 2
    ;;
esac
