#!/usr/bin/env bash
# A throwaway PostgreSQL server configured as docs/operations.md ("Scaling") recommends for large runs,
# to measure what that configuration buys against the server's defaults:
#
#   bash bench/postgres-tuned.sh start
#   MERIDIAN_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5433/postgres npm run bench -- engine
#   bash bench/postgres-tuned.sh stop
#
# start: initdb into $MERIDIAN_BENCH_PG_DIR (default /tmp/meridian-bench-postgres) with the machine's
# PostgreSQL binaries, then runs it on 127.0.0.1:$MERIDIAN_BENCH_PG_PORT (default 5433), trust
# authentication, with shared_buffers a quarter of the machine's memory, max_wal_size 8 GB and
# autovacuum on; everything else is PostgreSQL's default. stop: stops it and deletes its directory.
# Needs root (the server runs as the postgres user) or to be run as the postgres user.
set -euo pipefail

DIR=${MERIDIAN_BENCH_PG_DIR:-/tmp/meridian-bench-postgres}
PORT=${MERIDIAN_BENCH_PG_PORT:-5433}
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$BIN/pg_ctl" ] || { echo "postgres-tuned: no PostgreSQL server binaries under /usr/lib/postgresql" >&2; exit 1; }

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

case "${1:-}" in
  start)
    if [ -f "$DIR/postmaster.pid" ]; then echo "postgres-tuned: already running in $DIR"; exit 0; fi
    rm -rf "$DIR"
    mkdir -p "$DIR"
    [ "$(id -un)" = postgres ] || chown postgres: "$DIR"
    as_postgres "$BIN/initdb" -D "$DIR" --auth=trust --username=postgres --encoding=UTF8 >/dev/null
    memory_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
    {
      echo "listen_addresses = '127.0.0.1'"
      echo "port = $PORT"
      echo "unix_socket_directories = '$DIR'"
      echo "shared_buffers = $((memory_kb / 4 / 1024))MB"
      echo "max_wal_size = 8GB"
      echo "autovacuum = on"
    } | as_postgres tee -a "$DIR/postgresql.conf" >/dev/null
    as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w start >/dev/null
    echo "postgres-tuned: running on 127.0.0.1:$PORT (shared_buffers $((memory_kb / 4 / 1024))MB, max_wal_size 8GB, autovacuum on)"
    ;;
  stop)
    if [ -f "$DIR/postmaster.pid" ]; then as_postgres "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >/dev/null; fi
    rm -rf "$DIR"
    echo "postgres-tuned: stopped and removed"
    ;;
  *)
    echo "usage: bash bench/postgres-tuned.sh start|stop" >&2
    exit 2
    ;;
esac
