#!/usr/bin/env bash
# The browser client tested in a real, headless Chromium: starts `parley serve` (the binary
# given, on a loopback port, with a fresh data directory) and runs Tests/Browser with
# Selenium and axe-core (from PyPI, into a virtual environment). Screenshots and the
# accessibility reports go to browser-artefacts/.
#   scripts/test-browser.sh .build/debug/parley [unittest arguments, e.g. WebClientTests.test_x]
# Needs Debian's chromium and chromium-driver.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BINARY="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
PORT="${PARLEY_BROWSER_PORT:-54340}"
VENV="${PARLEY_BROWSER_VENV:-$ROOT/.venv-browser}"
DATA="$(mktemp -d /tmp/parley-browser-XXXXXX)"
export PARLEY_BROWSER_ARTEFACTS="${PARLEY_BROWSER_ARTEFACTS:-$ROOT/browser-artefacts}"
export PARLEY_BROWSER_SERVER="http://127.0.0.1:$PORT"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import selenium, axe_selenium_python' 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check selenium axe-selenium-python
fi

# Users register and log in as fast as a script types: the limits that would refuse that
# are off; bcrypt at its lowest cost keeps logins quick.
"$BINARY" serve --port "$PORT" --data-dir "$DATA" --bcrypt-cost 4 --rate-limit off >"$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
    kill -0 "$SERVER" 2>/dev/null || { cat "$DATA/server.log"; exit 1; }
    sleep 0.2
done

rm -rf "$PARLEY_BROWSER_ARTEFACTS"
mkdir -p "$PARLEY_BROWSER_ARTEFACTS"
status=0
"$VENV/bin/python" "$ROOT/Tests/Browser/web_client_test.py" "$@" || status=$?
if [ $status -ne 0 ]; then
    echo "--- server log (last 50 lines) ---"
    tail -50 "$DATA/server.log"
fi
exit $status
