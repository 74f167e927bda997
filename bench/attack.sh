#!/usr/bin/env bash
# Memory under attack (issue 22): each kind of hostile request of
# TestMemoryUnderAttack, every request unique, sent for a fixed time at a
# fresh gateway run with the manifests' environment
# (deploy/base/deployment.yaml: GOMEMLIMIT and the rest), while a normal
# query is sent from another client every 100 ms.
#
#   bench/attack.sh [duration]                 each attack's duration (default 20s)
#   ATTACK_RUN='nested|WebSocket' bench/attack.sh 10s   only the attacks whose names match
#
# Prints, per attack: the requests sent; resident memory idle and at its
# peak (VmHWM), and the peak of its anonymous part (RssAnon, what the Go
# runtime maps: GOMEMLIMIT bounds that, not the binary's 22 MiB of pages);
# the live heap's peak (go_gc_heap_live_bytes) and its bound; the peak of
# what the stores say they hold (gateway_store_bytes, where the gateway
# has them); the normal query's answers and latency (median/slowest); and
# the attack's answers by kind. Then the invariant's failures, if any;
# the exit status is the test's. It runs the test without the race
# detector: the attacks are the test's own, only their duration differs.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-20s}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
go test -count=1 -timeout 60m -run "^TestMemoryUnderAttack\$/(${ATTACK_RUN:-})" . \
  -attack-duration="$duration" -attack-report="$tmp/report" >"$tmp/log" 2>&1 || status=$?
if [ ! -s "$tmp/report" ]; then
  cat "$tmp/log" >&2
  exit 1
fi
cat "$tmp/report"
if [ "$status" -ne 0 ]; then
  echo
  echo "invariant broken:"
  # The test's own lines, not the gateway's log it shows on a failure.
  grep -E -- '--- FAIL|memory_attack_test\.go:[0-9]+: [a-z]' "$tmp/log" | grep -vE 'memory_attack_test\.go:[0-9]+: [0-9]+ sent;' || true
fi
exit "$status"
