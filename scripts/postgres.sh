#!/usr/bin/env bash
# A throwaway PostgreSQL server from Debian's packages (apt-get install postgresql), for the tests
# and scripts/cluster.sh: its own data folder, a unix socket in that folder and 127.0.0.1:PORT,
# a superuser and database named sketchwise (password sketchwise over TCP, trust on the socket).
#
#   scripts/postgres.sh start [DIR] [PORT]   makes the cluster in DIR if new, starts it (unless it
#                                            runs: then on its port), prints its URL
#   scripts/postgres.sh stop [DIR]           stops it (the data stays; remove DIR to forget it)
#   scripts/postgres.sh url [DIR]            prints the URL of a started cluster
#
# DIR defaults to $SKETCHWISE_POSTGRES_DIR or /tmp/sketchwise-postgres; PORT to the first of 55432,
# 55433, … that no other program listens on (another checkout's cluster, say). PostgreSQL
# refuses to run as root, so under root (CI) the server runs as the `postgres` user.
set -euo pipefail

command=${1:-}
dir=${2:-${SKETCHWISE_POSTGRES_DIR:-/tmp/sketchwise-postgres}}
port=${3:-}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ]; then
  echo "postgres.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2
  exit 1
fi

# as_owner CMD…: runs CMD as the cluster's owner (postgres under root, else the current user).
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# free_port: the first port from 55432 on that 127.0.0.1 can still be bound to.
free_port() {
  python3 - <<'PY'
import socket
for port in range(55432, 55632):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        print(port)
        break
else:
    raise SystemExit("postgres.sh: no free port in 55432-55631")
PY
}

url() {
  echo "postgres://sketchwise:sketchwise@127.0.0.1:$(cat "$dir/port")/sketchwise?sslmode=disable"
}

case "$command" in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" -ne 0 ] || chown postgres: "$dir"
    if ! as_owner test -r "$dir" -a -x "$dir"; then
      echo "postgres.sh: the postgres user cannot reach $dir (a folder inside a private one?); use e.g. a new folder in /tmp" >&2
      exit 1
    fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      echo sketchwise > "$dir/password"
      [ "$(id -u)" -ne 0 ] || chown postgres: "$dir/password"
      as_owner "$bin/initdb" -D "$dir/data" -U sketchwise --pwfile="$dir/password" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    if as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      # Already running: on the port it was started with, whatever PORT says.
      port=$(cat "$dir/port")
    else
      port=${port:-$(free_port)}
      echo "$port" > "$dir/port"
      as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=200" start >/dev/null \
        || { tail -n 20 "$dir/server.log" >&2; exit 1; }
    fi
    if ! "$bin/psql" -h "$dir" -p "$port" -U sketchwise -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'sketchwise'" | grep -q 1; then
      "$bin/psql" -h "$dir" -p "$port" -U sketchwise -d postgres -qc "CREATE DATABASE sketchwise"
    fi
    url
    ;;
  stop)
    if [ -f "$dir/data/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    fi
    ;;
  url)
    url
    ;;
  *)
    echo "usage: scripts/postgres.sh start|stop|url [DIR] [PORT]" >&2
    exit 2
    ;;
esac
