#!/usr/bin/env bash
# Starts or stops a private PostgreSQL cluster for the tests: a temporary directory, a
# loopback port, trust authentication, run as the unprivileged `postgres` user.
#   scripts/test-postgres.sh start   # (re)creates the test database; prints the URL to export as PARLEY_TEST_POSTGRES_URL
#   scripts/test-postgres.sh stop
set -euo pipefail
PORT="${PARLEY_TEST_POSTGRES_PORT:-54329}"
DIR="${PARLEY_TEST_POSTGRES_DIR:-/tmp/parley-test-postgres}"
BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -n "$BIN" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
RUN=(); [ "$(id -u)" = 0 ] && RUN=(runuser -u postgres --)

case "${1:-}" in
start)
    if [ ! -f "$DIR/PG_VERSION" ]; then
        mkdir -p "$DIR"; [ "$(id -u)" = 0 ] && chown postgres "$DIR"
        "${RUN[@]}" "$BIN/initdb" -D "$DIR" -U postgres --auth=trust -E UTF8 >/dev/null
    fi
    # fsync=off: the test cluster is thrown away; durability is not what these tests measure.
    # max_connections=1000: the suite runs dozens of in-process nodes at once, each with its
    # pool and its LISTEN connection.
    if ! "${RUN[@]}" "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1; then
        "${RUN[@]}" "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w \
            -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c max_connections=1000 -c fsync=off" start >/dev/null
    fi
    # A fresh database each time: every test makes schemas of its own and leaves them, and a
    # catalog of thousands of schemas slows DDL until timing-sensitive tests fail.
    "${RUN[@]}" "$BIN/dropdb" -h 127.0.0.1 -p "$PORT" -U postgres --if-exists --force parley_test
    # A UTF-8 character type whatever the cluster's locale: pg_trgm (message search) takes
    # trigrams only from characters the locale calls letters, and C has no CJK letters.
    "${RUN[@]}" "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres --template=template0 --locale=C.UTF-8 parley_test
    echo "postgres://postgres@127.0.0.1:$PORT/parley_test"
    ;;
stop)
    "${RUN[@]}" "$BIN/pg_ctl" -D "$DIR" -m fast stop >/dev/null 2>&1 || true
    ;;
*)
    echo "usage: $0 start|stop" >&2; exit 2
    ;;
esac
