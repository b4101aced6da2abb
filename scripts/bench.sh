#!/usr/bin/env bash
# Runs one `parley bench` scenario against a fresh release server on its own data directory,
# then stops the server. Extra arguments go to `parley bench`.
#   scripts/bench.sh direct --users 20 --rate 1000 --duration 5
# Environment: PARLEY_BENCH_PORT (default 18080), PARLEY_BENCH_SERVE_ARGS (more serve flags),
# PARLEY_BENCH_SERVER_BIN (the server binary to measure, to compare builds under the same
# load generator; default the release build, which always runs the load),
# PARLEY_BENCH_PIN=1 (the server on core 1 and the load generator on core 0 with `taskset`, so
# that figures mean "per core"; PARLEY_BENCH_SERVER_CORES and PARLEY_BENCH_LOAD_CORES choose others),
# PARLEY_BENCH_DATABASE (a PostgreSQL server's URL without a database, e.g.
# postgres://postgres@127.0.0.1:5432: each run gets a fresh database there instead of SQLite),
# PARLEY_BENCH_NODES (with PARLEY_BENCH_DATABASE: how many nodes share it, on consecutive ports;
# the bench spreads its sockets over them and adds up their CPU time).
set -euo pipefail
PORT="${PARLEY_BENCH_PORT:-18080}"
BIN=.build/release/parley
[ -x "$BIN" ] || swift build -c release --product parley
SERVER_BIN="${PARLEY_BENCH_SERVER_BIN:-$BIN}"
DATA="$(mktemp -d)"
# The load comes from one address: lift the per-IP connection limit (builds before it had none).
# (The help is read whole first: `grep -q` would stop reading early, and under pipefail the
# server's broken pipe would fail the test.)
HELP="$("$SERVER_BIN" serve --help)"
LIMIT=(); grep -q -- --max-connections-per-ip <<<"$HELP" && LIMIT=(--max-connections-per-ip 0)
# Nor may the rate limits refuse the load; each send still takes a token, so their cost is measured.
grep -q -- --rate-limit <<<"$HELP" && LIMIT+=(--rate-limit off --rate-limit send=1000000000,1000000000/s)
SERVER_PIN=(); LOAD_PIN=()
if [ "${PARLEY_BENCH_PIN:-0}" = 1 ]; then
  SERVER_PIN=(taskset -c "${PARLEY_BENCH_SERVER_CORES:-1}")
  LOAD_PIN=(taskset -c "${PARLEY_BENCH_LOAD_CORES:-0}")
fi
NODES="${PARLEY_BENCH_NODES:-1}"
STORE=()
if [ -n "${PARLEY_BENCH_DATABASE:-}" ]; then
  NAME="parley_bench_$$_$RANDOM"
  psql "$PARLEY_BENCH_DATABASE/postgres" -qc "CREATE DATABASE $NAME TEMPLATE template0 LOCALE 'C.UTF-8'"
  STORE=(--database "$PARLEY_BENCH_DATABASE/$NAME")
fi
SERVERS=(); TARGETS=()
cleanup() {
  kill -TERM "${SERVERS[@]}" 2>/dev/null || true; wait "${SERVERS[@]}" 2>/dev/null || true; rm -rf "$DATA"
  [ -z "${NAME:-}" ] || psql "$PARLEY_BENCH_DATABASE/postgres" -qc "DROP DATABASE $NAME" || true
}
trap cleanup EXIT
for node in $(seq 0 $((NODES - 1))); do
  NODE_PORT=$((PORT + node)); mkdir -p "$DATA/$node"
  # shellcheck disable=SC2086
  "${SERVER_PIN[@]}" "$SERVER_BIN" serve --port "$NODE_PORT" --data-dir "$DATA/$node" "${STORE[@]}" --bcrypt-cost 4 \
    "${LIMIT[@]}" --log-level error ${PARLEY_BENCH_SERVE_ARGS:-} &
  SERVERS+=($!); TARGETS+=(--server "http://127.0.0.1:$NODE_PORT" --server-pid "$!")
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$NODE_PORT/health" >/dev/null && break; sleep 0.1; done
done
"${LOAD_PIN[@]}" "$BIN" bench "$@" "${TARGETS[@]}"
