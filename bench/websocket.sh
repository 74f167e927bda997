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

if [ -n "${GATEWAY_BIN:-}" ]; then gateway_bin=$GATEWAY_BIN; else gateway_build; fi
go build -o "$tmp/wsflood" ./bench/wsflood
# shellcheck disable=SC2086
gateway_start gateway -response-cache-bytes=0 -access-log=false ${GATEWAY_FLAGS:-}
"$tmp/wsflood" -url "http://${gateway_addr[gateway]}/graphql" -duration "${secs}s"
