#!/usr/bin/env bash
# Runs a test command (`swift test ...`) with its output line by line and a time limit, for
# CI: piped output is otherwise block-buffered, so a run that hangs shows a tail that ends
# kilobytes before the hang. When the limit passes, the run is stopped and the tests that
# started and never finished are named, and the script fails.
#
# Usage: scripts/watch-tests.sh MINUTES COMMAND [ARGUMENTS...]
set -uo pipefail

minutes="$1"
shift
log="$(mktemp -t parley-tests.XXXXXX)"
trap 'rm -f "$log"' EXIT

# stdbuf reaches the test process through the environment (LD_PRELOAD), so its prints are
# written a line at a time.
timeout --kill-after=30 "${minutes}m" stdbuf -oL -eL "$@" 2>&1 | tee "$log"
status="${PIPESTATUS[0]}"
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    # `swift test` runs the tests in a process of its own group, which the timeout missed.
    pkill -KILL -f 'PackageTests\.xctest' || true
    echo "watch-tests: stopped after ${minutes} minutes; tests started and never finished:"
    # swift-testing prints "◇ Test name() started." and later "✔ Test name() passed after ..."
    # or "✘ Test name() failed after ..." (a parameterised test: "with N test cases passed").
    awk '$2 == "Test" && $3 != "run" && / started\.$/ { started[$3] = 1 }
         $2 == "Test" && / (passed|failed) after / { delete started[$3] }
         END { for (name in started) print "    " name }' "$log"
fi
exit "$status"
