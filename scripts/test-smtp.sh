#!/usr/bin/env bash
# Starts or stops a private SMTP server for the tests: aiosmtpd (from PyPI into a virtual
# environment) on a loopback port, requiring STARTTLS with a self-signed certificate for
# localhost, then AUTH as parley/parley-test. Each message it accepts becomes a file in
# /tmp/parley-test-smtp-$PORT/mail, emptied at each start (export it as PARLEY_TEST_SMTP_MAILDIR).
#   scripts/test-smtp.sh start   # prints the URL to export as PARLEY_TEST_SMTP_URL
#   scripts/test-smtp.sh stop
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${PARLEY_TEST_SMTP_PORT:-54331}"
VENV="${PARLEY_TEST_SMTP_VENV:-$ROOT/.venv-smtp}"
DIR="/tmp/parley-test-smtp-$PORT"
PID_FILE="$DIR/server.pid"
LOG_FILE="$DIR/server.log"
MAILDIR="$DIR/mail"

running() { [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; }
answers() { python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), timeout=1).close()" 2>/dev/null; }

case "${1:-}" in
start)
    if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import aiosmtpd' 2>/dev/null; then
        python3 -m venv "$VENV" >&2
        "$VENV/bin/pip" install --quiet --disable-pip-version-check aiosmtpd >&2
    fi
    mkdir -p "$DIR"
    if [ ! -f "$DIR/cert.pem" ] || [ ! -f "$DIR/key.pem" ]; then
        openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=localhost \
            -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
            -keyout "$DIR/key.pem" -out "$DIR/cert.pem" >/dev/null 2>&1
    fi
    rm -rf "$MAILDIR"
    mkdir -p "$MAILDIR"
    if ! running; then
        nohup "$VENV/bin/python" "$ROOT/scripts/smtp-test-server.py" "$PORT" "$DIR/cert.pem" "$DIR/key.pem" \
            "$MAILDIR" >"$LOG_FILE" 2>&1 &
        echo $! >"$PID_FILE"
    fi
    for _ in $(seq 1 100); do
        answers && break
        running || { echo "the SMTP server exited; see $LOG_FILE" >&2; exit 1; }
        sleep 0.2
    done
    answers || { echo "the SMTP server does not answer on 127.0.0.1:$PORT; see $LOG_FILE" >&2; exit 1; }
    echo "smtp://parley:parley-test@localhost:$PORT?from=parley@localhost&ca=$DIR/cert.pem"
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
