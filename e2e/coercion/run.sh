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

. e2e/gateway.sh
echo "coercion: building the gateway"
gateway_build
gateway_start coercion
addr=${gateway_addr[coercion]}
echo "coercion: gateway ready on $addr"

# Both sides read the schema the gateway serves, not the repository's.
curl -sf -m 10 -o "$tmp/schema.graphql" "http://$addr/schema.graphql"
go run ./e2e/coercion/cases "$tmp/schema.graphql" >"$tmp/cases.json"

npm ci --prefix e2e/coercion --no-audit --no-fund

status=0
node e2e/coercion/differential.mjs "$tmp/schema.graphql" "$tmp/cases.json" "http://$addr/graphql" || status=$?
if [ "$status" -ne 0 ]; then gateway_log coercion; fi
exit "$status"
