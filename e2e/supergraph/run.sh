#!/usr/bin/env bash
# The gateway in a real supergraph on 127.0.0.1: the built binary as the
# catalogue subgraph beside a small inventory subgraph (@apollo/subgraph),
# composed by @theguild/federation-composition and served by Hive
# Gateway's runtime. The gateway's log lands in e2e/supergraph/artifacts/
# (ARTIFACTS_DIR to put it elsewhere).
#
#   bash e2e/supergraph/run.sh      (needs go, node >= 20, npm)
set -euo pipefail
cd "$(dirname "$0")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "supergraph: building the gateway"
(cd ../.. && go build -o "$tmp/gateway" .)
npm ci --no-audit --no-fund
GATEWAY_BIN="$tmp/gateway" npm test
