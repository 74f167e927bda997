#!/usr/bin/env bash
# What one flooding WebSocket costs the other callers: a normal query's
# latency over HTTP alone, then while one graphql-transport-ws connection
# keeps 3,000 subscribe messages of the introspection query outstanding
# (bench/wsflood). The response cache is off, so that every query takes
# its turn for a core, as the flood's do.
#
#   bench/websocket.sh [seconds]        (needs go)
#
# Extra gateway flags go in GATEWAY_FLAGS; GATEWAY_BIN runs another build
# (to compare with an older one).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${1:-10}
tmp=$(mktemp -d)
port=$((18800 + RANDOM % 50))
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

bin=${GATEWAY_BIN:-}
if [ -z "$bin" ]; then
  go build -o "$tmp/gateway" .
  bin=$tmp/gateway
fi
go build -o "$tmp/wsflood" ./bench/wsflood
# shellcheck disable=SC2086
"$bin" -addr 127.0.0.1:$port -response-cache-bytes=0 -access-log=false ${GATEWAY_FLAGS:-} 2>"$tmp/log" &
wait_ready $port
"$tmp/wsflood" -url "http://127.0.0.1:$port/graphql" -duration "${secs}s"
