#!/usr/bin/env bash
# Fuzzes a Parley server's HTTP API against its own OpenAPI document with Schemathesis.
#
#   bash scripts/fuzz-api.sh <path-to-parley-binary>
#
# Starts `<binary> serve` on a free port with a throwaway SQLite directory, registers users
# and logs them in with curl, seeds a few conversations and messages (so small ids hit real
# resources), then runs Schemathesis against http://127.0.0.1:PORT/openapi.yaml with the
# checks below. Exits non-zero when any check fails, when Schemathesis cannot run, or when
# the server dies; the server is stopped whatever happens.
#
# Two passes, each with its own account and bearer token:
#   1. "main": every operation except the four that end or create sessions. They are left
#      out because revoking sessions would log the fuzzing user out halfway (session ids
#      are small integers, the fuzzer tries them first) and failed logins lock accounts
#      after 5 and a source IP after 20 (see the login lockout in openapi.yaml).
#   2. "sessions": POST /v1/sessions, POST /v1/sessions/refresh, DELETE /v1/session and
#      DELETE /v1/sessions/{sessionId}, with a throwaway account's token. Once the fuzzer
#      revokes that session, or the fuzzed logins reach the lockout, the answers are 401 and
#      429, which are documented, so the checks stay meaningful; this pass runs last because
#      afterwards no login from 127.0.0.1 may work for 15 minutes.
#
# Environment (all optional):
#   FUZZ_MAX_TIME      seconds the main pass spends (default 420), handed to Schemathesis'
#                      --max-time: it splits the time over the operations so that none is
#                      starved, keeps a share for stateful testing, and ends with its summary.
#                      Without a budget the main pass took 270-360 s on an idle 2-core
#                      machine and over 600 s in one CI run (cause unknown: no seed was kept).
#   FUZZ_SESSIONS_MAX_TIME  the same for the sessions pass (default 60)
#   FUZZ_MAX_EXAMPLES  examples per operation in one round of fuzzing (default 200; once every
#                      operation had its round, fuzzing and stateful testing start another)
#   FUZZ_SEED          Schemathesis seed (default: random, printed first). The same seed draws
#                      the same examples in the same order; under a time budget a replay may
#                      stop at another point, on a machine of another speed.
#   FUZZ_CHECKS        comma-separated checks (default: see CHECKS below)
#   FUZZ_PHASES        comma-separated phases (default examples,coverage,fuzzing,stateful)
#   FUZZ_WORKERS       Schemathesis workers (default 1: with more, Python 3.11 threads can
#                      fail inside Hypothesis with "AST constructor recursion depth mismatch")
#   FUZZ_GRACE         seconds a pass may run past its budget before it is stopped and counted
#                      as failed, as hung (default 180)
#   FUZZ_REPORT_DIR    JUnit reports and Schemathesis' files (default .build/fuzz-report)
set -euo pipefail

SCHEMATHESIS_VERSION=4.32.5

if [[ $# -ne 1 ]]; then
    echo "usage: bash scripts/fuzz-api.sh <path-to-parley-binary>" >&2
    exit 2
fi
BINARY=$1
if [[ ! -x $BINARY ]]; then
    echo "fuzz-api: '$BINARY' is not an executable file" >&2
    exit 2
fi
BINARY=$(cd "$(dirname "$BINARY")" && pwd)/$(basename "$BINARY")

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=$ROOT/.build/fuzz-venv
REPORT_DIR=${FUZZ_REPORT_DIR:-$ROOT/.build/fuzz-report}
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-200}
WORKERS=${FUZZ_WORKERS:-1}
MAIN_MAX_TIME=${FUZZ_MAX_TIME:-420}
SESSIONS_MAX_TIME=${FUZZ_SESSIONS_MAX_TIME:-60}
GRACE=${FUZZ_GRACE:-180}
PHASES=${FUZZ_PHASES:-examples,coverage,fuzzing,stateful}
# not_a_server_error: no 5xx; status_code_conformance: every status is documented for the
# operation; content_type_conformance: the Content-Type is the documented one;
# response_schema_conformance: the body matches the documented schema (Error for errors);
# response_headers_conformance: documented headers are there (Retry-After on 429, Allow
# on 405); unsupported_method + allow_header_conformance: a method a path does not accept
# gets 405 with a correct Allow header.
CHECKS=${FUZZ_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance,unsupported_method,allow_header_conformance}

log() { printf '[fuzz-api] %s\n' "$*" >&2; }

for tool in curl python3; do
    command -v "$tool" >/dev/null || { log "needs $tool"; exit 2; }
done

# --- Python environment -----------------------------------------------------------------
if [[ ! -x $VENV/bin/schemathesis ]] \
    || [[ $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null) != "$SCHEMATHESIS_VERSION" ]]
then
    log "installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
    rm -rf "$VENV"
    mkdir -p "$(dirname "$VENV")"
    python3 -m venv "$VENV" || { log "python3 -m venv failed (on Debian: apt-get install python3-venv)"; exit 2; }
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
PY=$VENV/bin/python

# --- Server -----------------------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/parley-fuzz.XXXXXX")
SERVER_LOG=$WORK/server.log
SERVER_PID=""
PASS_PID=""
TAIL_PID=""

# stop PID: TERM, then KILL if it is still there after 5 s.
stop() {
    [[ -n $1 ]] && kill -0 "$1" 2>/dev/null || return 0
    kill -TERM "$1" 2>/dev/null || true
    for _ in $(seq 50); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
stop_server() {
    stop "$SERVER_PID"
    SERVER_PID=""
}
cleanup() {
    local status=$?
    stop "$PASS_PID"
    stop "$TAIL_PID"
    stop_server
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
BASE=http://127.0.0.1:$PORT
log "starting $BINARY serve on port $PORT (log: $SERVER_LOG)"
"$BINARY" serve --host 127.0.0.1 --port "$PORT" --data-dir "$WORK/data" --bcrypt-cost 4 --sync normal \
    >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!

server_log_tail() {
    log "last lines of the server log:"
    tail -n 40 "$SERVER_LOG" >&2 || true
}

ready=""
for _ in $(seq 300); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        log "the server exited before it was ready"
        server_log_tail
        exit 1
    fi
    if curl -fsS -o /dev/null --max-time 2 "$BASE/ready" 2>/dev/null; then
        ready=1
        break
    fi
    sleep 0.2
done
if [[ -z $ready ]]; then
    log "the server did not become ready within 60 s"
    server_log_tail
    exit 1
fi

# --- Accounts and seed data -------------------------------------------------------------
# api METHOD PATH [BODY] [TOKEN]: prints the response body; fails unless the status is 2xx.
api() {
    local method=$1 path=$2 body=${3:-} token=${4:-}
    local args=(-sS --max-time 30 -X "$method" -w '\n%{http_code}' -H 'Content-Type: application/json')
    [[ -n $token ]] && args+=(-H "Authorization: Bearer $token")
    [[ -n $body ]] && args+=(--data-binary "$body")
    local out status
    out=$(curl "${args[@]}" "$BASE$path")
    status=${out##*$'\n'}
    out=${out%$'\n'*}
    if [[ $status != 2* ]]; then
        log "setup request failed: $method $path -> $status $out"
        return 1
    fi
    printf '%s' "$out"
}
json() { "$PY" -c 'import json, sys; v = json.load(sys.stdin)
for k in sys.argv[1].split("."): v = v[int(k)] if k.isdigit() else v[k]
print(v)' "$1"; }

PASSWORD='Fuzz-pass-1'
register() { api POST /v1/accounts "{\"username\":\"$1\",\"password\":\"$PASSWORD\",\"email\":\"$1@example.com\"}" >/dev/null; }
login() { api POST /v1/sessions "{\"login\":\"$1\",\"password\":\"$PASSWORD\",\"device\":\"fuzz-api.sh\"}" | json accessToken; }

register fuzzer
register fuzzpeer
register fuzzsessions
FUZZER_TOKEN=$(login fuzzer)
PEER_TOKEN=$(login fuzzpeer)
SESSIONS_TOKEN=$(login fuzzsessions)
# More sessions of the throwaway account, so that revoking one of them can succeed before
# the fuzzer happens on the session of its own token.
for _ in 1 2 3; do login fuzzsessions >/dev/null; done
PEER_ID=$(api GET /v1/me "" "$PEER_TOKEN" | json user.id)
DIRECT_ID=$(api POST /v1/conversations/direct "{\"userId\":$PEER_ID}" "$FUZZER_TOKEN" | json conversation.id)
GROUP_ID=$(api POST /v1/conversations "{\"name\":\"fuzz group\",\"memberIds\":[$PEER_ID]}" "$FUZZER_TOKEN" | json conversation.id)
# A group the fuzzing user is not in, for the 403 answers.
api POST /v1/conversations '{"name":"not yours","memberIds":[]}' "$PEER_TOKEN" >/dev/null
for conversation in "$DIRECT_ID" "$GROUP_ID"; do
    for n in 1 2 3; do
        api POST /v1/messages "{\"conversationId\":$conversation,\"clientMsgId\":\"seed-$conversation-$n\",\"kind\":\"text\",\"content\":{\"text\":\"seed $n\"}}" "$FUZZER_TOKEN" >/dev/null
    done
done
api POST "/v1/conversations/$DIRECT_ID/read" '{"seq":2}' "$PEER_TOKEN" >/dev/null
log "seeded: users fuzzer, fuzzpeer (id $PEER_ID), fuzzsessions; conversations $DIRECT_ID (direct), $GROUP_ID (group)"

# --- Schemathesis -----------------------------------------------------------------------
mkdir -p "$REPORT_DIR"
REPORT_DIR=$(cd "$REPORT_DIR" && pwd)
# Chosen here rather than by Schemathesis, which prints its seed only at the end: a pass
# stopped as hung can be replayed too.
SEED=${FUZZ_SEED:-$("$PY" -c 'import random; print(random.getrandbits(64))')}
log "seed $SEED (FUZZ_SEED=$SEED draws the same examples again)"
SESSION_OPERATIONS=(login refresh logout revokeSession)

# run_pass NAME TOKEN SECONDS FILTER...: runs Schemathesis for SECONDS, output in
# $WORK/NAME.out; returns its status.
run_pass() {
    local name=$1 token=$2 budget=$3
    shift 3
    local limit=$((budget + GRACE))
    log "pass '$name': schemathesis run for $budget s (up to $MAX_EXAMPLES examples per operation and round, phases $PHASES)"
    local command=(
        "$VENV/bin/schemathesis" run "$BASE/openapi.yaml"
        --url "$BASE"
        --header "Authorization: Bearer $token"
        --checks "$CHECKS"
        --phases "$PHASES"
        --max-examples "$MAX_EXAMPLES"
        --max-time "$budget"
        --workers "$WORKERS"
        --request-timeout 30
        --continue-on-failure
        --generation-database none
        --suppress-health-check all
        --no-color
        --report junit --report-junit-path "$REPORT_DIR/$name.xml"
        --seed "$SEED"
        "$@"
    )
    local status
    # In the report directory: Schemathesis and Hypothesis keep their working files
    # (.schemathesis, .hypothesis) in the current directory, and `st replay` looks there.
    # In the background, with `wait`, so that a signal reaches the traps at once (bash runs
    # them only after a foreground command ends); `timeout` passes a TERM on to Schemathesis.
    : >"$WORK/$name.out" # there before tail opens it
    (cd "$REPORT_DIR" && exec timeout --kill-after=10 "$limit" "${command[@]}") >"$WORK/$name.out" 2>&1 &
    PASS_PID=$!
    tail -n +1 -f --pid="$PASS_PID" "$WORK/$name.out" &
    TAIL_PID=$!
    wait "$PASS_PID" && status=0 || status=$?
    wait "$TAIL_PID" || true
    PASS_PID="" TAIL_PID=""
    [[ $status -eq 124 || $status -eq 137 ]] && log "pass '$name' was stopped as hung after $limit s"
    return "$status"
}

exclude_sessions=()
include_sessions=()
for operation in "${SESSION_OPERATIONS[@]}"; do
    exclude_sessions+=(--exclude-operation-id "$operation")
    include_sessions+=(--include-operation-id "$operation")
done

started=$SECONDS
set +e
run_pass main "$FUZZER_TOKEN" "$MAIN_MAX_TIME" "${exclude_sessions[@]}"
main_status=$?
run_pass sessions "$SESSIONS_TOKEN" "$SESSIONS_MAX_TIME" "${include_sessions[@]}"
sessions_status=$?
set -e
elapsed=$((SECONDS - started))

server_status=alive
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    server_status=died
fi
unhandled=$(grep -c "Unhandled error" "$SERVER_LOG" || true)

# --- Summary ----------------------------------------------------------------------------
verdict() { [[ $1 -eq 0 ]] && echo "passed" || echo "FAILED (exit $1)"; }
summary_of() {
    # Each failure (operation, check, request to reproduce it) and each Schemathesis error,
    # then Schemathesis' own closing lines.
    awk '
        /^=+ FAILURES =+$/ { mode = "F"; next }
        /^=+ ERRORS =+$/ { mode = "E"; next }
        /^=+ / { mode = ""; next }
        mode != "" && /^___+ .* ___+$/ {
            title = $0; gsub(/^_+ | _+$/, "", title)
            print "    " (mode == "E" ? "ERROR in " : "failure: ") title
            want = (mode == "E"); next
        }
        mode == "F" && /^- / { print "      " $0; next }
        mode == "F" && /^Reproduce with:/ { want = 1; next }
        want && NF { sub(/^ +/, ""); print "      " $0; want = 0 }
    ' "$WORK/$1.out" || true
    if grep -q '^=* *SUMMARY *=*$' "$WORK/$1.out"; then
        sed -n '/^=* *SUMMARY *=*$/,$p' "$WORK/$1.out" | grep -v '^\s*$' | sed 's/^/    /' || true
    else
        # Stopped before its summary: the last lines say how far it got.
        echo "    (no summary; the last lines it printed:)"
        grep -v '^\s*$' "$WORK/$1.out" | tail -n 15 | sed 's/^/    /' || true
    fi
}
{
    echo
    echo "==================== fuzz-api summary ===================="
    echo "schemathesis $SCHEMATHESIS_VERSION, ${elapsed}s, seed $SEED, server $BASE ($server_status)"
    echo "checks: $CHECKS"
    echo "pass 'main' (all operations but ${SESSION_OPERATIONS[*]}): $(verdict "$main_status")"
    summary_of main
    echo "pass 'sessions' (${SESSION_OPERATIONS[*]}): $(verdict "$sessions_status")"
    summary_of sessions
    echo "server log: $unhandled 'Unhandled error' line(s)"
    echo "JUnit reports and the server log: $REPORT_DIR"
    echo "=========================================================="
} >&2

cp "$SERVER_LOG" "$REPORT_DIR/server.log" 2>/dev/null || true
if [[ $unhandled -gt 0 ]]; then
    grep "Unhandled error" "$SERVER_LOG" | head -n 20 >&2
fi
if [[ $server_status == died ]]; then
    server_log_tail
fi

if [[ $main_status -ne 0 || $sessions_status -ne 0 || $server_status == died ]]; then
    log "FAILED"
    exit 1
fi
log "all checks passed"
