#!/usr/bin/env bash
# Baseline send throughput over HTTP, until `parley bench` exists: starts a release server,
# creates two users and their direct conversation, and POSTs unique messages with wrk
# (apt-get install wrk) for 10 s from 16 connections. Extra arguments go to `parley serve`.
#   swift build -c release --product parley
#   scripts/http-send-baseline.sh 18201 --data-dir /tmp/bench-sqlite
#   scripts/http-send-baseline.sh 18202 --database postgres://postgres@127.0.0.1:54329/bench
set -euo pipefail
PORT=$1; shift
HERE="$(cd "$(dirname "$0")" && pwd)"
BIN="$HERE/../.build/release/parley"
"$BIN" serve --port "$PORT" "$@" > /tmp/parley-baseline-$PORT.log 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
sleep 2
BASE=http://127.0.0.1:$PORT
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
curl -s -XPOST $BASE/v1/accounts -d '{"username":"bench","password":"Secret123"}' > /dev/null
curl -s -XPOST $BASE/v1/accounts -d '{"username":"peer","password":"Secret123"}' > /dev/null
TOKEN=$(curl -s -XPOST $BASE/v1/sessions -d '{"login":"bench","password":"Secret123"}' | json '["accessToken"]')
PEER=$(curl -s $BASE/v1/users/by-username/peer -H "Authorization: Bearer $TOKEN" | json '["id"]')
CONV=$(curl -s -XPOST $BASE/v1/conversations/direct -H "Authorization: Bearer $TOKEN" -d "{\"userId\":$PEER}" | json '["conversation"]["id"]')
TOKEN=$TOKEN CONV=$CONV PREFIX=p$PORT wrk -t2 -c16 -d10s -s "$HERE/http-send.lua" $BASE | grep -E "Requests/sec|requests"
echo "server maxSeq after the run: $(curl -s $BASE/v1/conversations/$CONV -H "Authorization: Bearer $TOKEN" | json '["conversation"]["maxSeq"]')"
