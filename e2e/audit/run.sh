#!/usr/bin/env bash
# GraphQL-over-HTTP conformance: builds the gateway, serves the embedded
# catalogue on a free loopback port, and runs graphql-http's server audits
# against /graphql. Exits non-zero if any MUST or SHOULD audit fails.
#
#   bash e2e/audit/run.sh        (from anywhere; needs go, node >= 20, npm)
set -euo pipefail
cd "$(dirname "$0")/../.."

. e2e/gateway.sh
echo "audit: building the gateway"
gateway_build
gateway_start audit
addr=${gateway_addr[audit]}
echo "audit: gateway ready on $addr"

npm ci --prefix e2e/audit --no-audit --no-fund

status=0
node e2e/audit/audit.mjs "http://$addr/graphql" || status=$?
if [ "$status" -ne 0 ]; then gateway_log audit; fi
exit "$status"
