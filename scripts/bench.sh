#!/usr/bin/env bash
# Runs one `parley bench` scenario against a fresh release server on its own data directory,
# then stops the server. Extra arguments go to `parley bench`.
#   scripts/bench.sh direct --users 20 --rate 1000 --duration 5
# Environment: PARLEY_BENCH_PORT (default 18080), PARLEY_BENCH_SERVE_ARGS (more serve flags),
# PARLEY_BENCH_SERVER_BIN (the server binary to measure, to compare builds under the same
# load generator; default the release build, which always runs the load),
# PARLEY_BENCH_PIN=1 (the server on core 1 and the load generator on core 0 with `taskset`, so
# that figures mean "per core"; PARLEY_BENCH_SERVER_CORES and PARLEY_BENCH_LOAD_CORES choose others).
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
# shellcheck disable=SC2086
"${SERVER_PIN[@]}" "$SERVER_BIN" serve --port "$PORT" --data-dir "$DATA" --bcrypt-cost 4 "${LIMIT[@]}" --log-level error ${PARLEY_BENCH_SERVE_ARGS:-} &
SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
"${LOAD_PIN[@]}" "$BIN" bench "$@" --server "http://127.0.0.1:$PORT" --server-pid "$SERVER"
