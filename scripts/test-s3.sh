#!/usr/bin/env bash
# Starts or stops a private S3-compatible server for the tests: moto (Python's mock of AWS,
# from PyPI into a virtual environment) on a loopback port, emptied, with the bucket the tests
# use. moto takes any credentials: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY as anything.
#   scripts/test-s3.sh start   # prints the URL to export as PARLEY_TEST_S3_URL
#   scripts/test-s3.sh stop
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${PARLEY_TEST_S3_PORT:-54330}"
VENV="${PARLEY_TEST_S3_VENV:-$ROOT/.venv-s3}"
PID_FILE="/tmp/parley-test-s3-$PORT.pid"
LOG_FILE="/tmp/parley-test-s3-$PORT.log"
BUCKET=parley-test
URL="http://127.0.0.1:$PORT"

running() { [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; }

case "${1:-}" in
start)
    if [ ! -x "$VENV/bin/moto_server" ]; then
        python3 -m venv "$VENV" >&2
        "$VENV/bin/pip" install --quiet --disable-pip-version-check 'moto[server]' >&2
    fi
    if ! running; then
        nohup "$VENV/bin/moto_server" -H 127.0.0.1 -p "$PORT" >"$LOG_FILE" 2>&1 &
        echo $! >"$PID_FILE"
    fi
    for _ in $(seq 1 100); do
        curl -fsS -o /dev/null "$URL/" 2>/dev/null && break
        running || { echo "moto exited; see $LOG_FILE" >&2; exit 1; }
        sleep 0.2
    done
    curl -fsS -o /dev/null "$URL/" || { echo "moto does not answer on $URL; see $LOG_FILE" >&2; exit 1; }
    # Empty, whatever earlier runs left: moto keeps everything in memory until reset.
    curl -fsS -o /dev/null -X POST "$URL/moto-api/reset"
    curl -fsS -o /dev/null -X PUT "$URL/$BUCKET"
    echo "s3://$BUCKET?endpoint=$URL"
    ;;
stop)
    if running; then
        kill "$(cat "$PID_FILE")"
        for _ in $(seq 1 50); do running || break; sleep 0.1; done
    fi
    rm -f "$PID_FILE"
    ;;
*)
    echo "usage: $0 start|stop" >&2; exit 2
    ;;
esac
