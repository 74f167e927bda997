#!/usr/bin/env bash
# GraphQL-over-HTTP conformance: builds the gateway, serves the embedded
# catalogue on a free loopback port, and runs graphql-http's server audits
# against /graphql. Exits non-zero if any MUST or SHOULD audit fails.
#
#   bash e2e/audit/run.sh        (from anywhere; needs go, node >= 20, npm)
set -euo pipefail
cd "$(dirname "$0")/../.."

. e2e/lib.sh
start_gateway audit

npm ci --prefix e2e/audit --no-audit --no-fund

status=0
node e2e/audit/audit.mjs "http://$addr/graphql" || status=$?
if [ "$status" -ne 0 ]; then gateway_log; fi
exit "$status"
