#!/usr/bin/env bash
# The differential test of input coercion: builds the gateway, serves the
# embedded catalogue on a free loopback port, generates requests that try
# every input position of the schema it serves at /schema.graphql (valid,
# out of range, of another type, null, lists, single values for lists,
# unknown fields, enums as strings; as literals and as variables), and
# checks that graphql-js (validate + getVariableValues, against the same
# SDL) and the gateway agree on each: refused before execution, or run.
# Exits non-zero on any disagreement or on fewer than 1,000 cases.
#
#   bash e2e/coercion/run.sh     (from anywhere; needs go, node >= 20, npm)
set -euo pipefail
cd "$(dirname "$0")/../.."

tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

gateway_log() { echo "--- gateway log (last 20 lines)"; tail -n 20 "$tmp/gateway.log" || true; }

echo "coercion: building the gateway"
go build -o "$tmp/gateway" .

# Port 0: the kernel picks a free port, the gateway logs the one it got.
# The upstream variables are dropped so it serves the embedded catalogue.
env -u CATALOGUE_BASE_URL -u CATALOGUE_WORLDBOSS_URL -u ADDR \
  "$tmp/gateway" -addr 127.0.0.1:0 2>"$tmp/gateway.log" &
pid=$!

addr=
ready=
for _ in $(seq 100); do # 100 x 0.2 s = 20 s at most
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "coercion: the gateway exited before it was ready"; gateway_log; exit 1
  fi
  if [ -z "$addr" ]; then
    addr=$(sed -n 's/.*"msg":"listening".*"addr":"\([^"]*\)".*/\1/p' "$tmp/gateway.log" | head -n 1)
  fi
  if [ -n "$addr" ] &&
    [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://$addr/readyz" || true)" = 200 ]; then
    ready=1; break
  fi
  sleep 0.2
done
if [ -z "$ready" ]; then
  echo "coercion: the gateway was not ready within 20 s (addr: ${addr:-unknown})"; gateway_log; exit 1
fi
echo "coercion: gateway ready on $addr"

# Both sides read the schema the gateway serves, not the repository's.
curl -sf -m 10 -o "$tmp/schema.graphql" "http://$addr/schema.graphql"
go run ./e2e/coercion/cases "$tmp/schema.graphql" >"$tmp/cases.json"

npm ci --prefix e2e/coercion --no-audit --no-fund

status=0
node e2e/coercion/differential.mjs "$tmp/schema.graphql" "$tmp/cases.json" "http://$addr/graphql" || status=$?
if [ "$status" -ne 0 ]; then gateway_log; fi
exit "$status"
