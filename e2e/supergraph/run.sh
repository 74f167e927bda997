#!/usr/bin/env bash
# The gateway in a real supergraph on 127.0.0.1: the built binary as the
# catalogue subgraph beside a small inventory subgraph (@apollo/subgraph),
# composed by @theguild/federation-composition and served by Hive
# Gateway's runtime. The gateway's log lands in e2e/supergraph/artifacts/
# (ARTIFACTS_DIR to put it elsewhere).
#
#   bash e2e/supergraph/run.sh      (needs go, node >= 20, npm)
set -euo pipefail
cd "$(dirname "$0")/../.."

# The tests start their gateways through e2e/gateway.mjs, which runs
# e2e/gateway.sh, the starter every script uses.
. e2e/gateway.sh
echo "supergraph: building the gateway"
gateway_build
cd e2e/supergraph
npm ci --no-audit --no-fund
GATEWAY_BIN="$gateway_bin" npm test
