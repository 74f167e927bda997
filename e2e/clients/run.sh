#!/usr/bin/env bash
# The real GraphQL clients against the real gateway on 127.0.0.1:
# graphql-ws (over ws) and graphql-sse subscribe and get catalogueChanged
# when a stand-in upstream changes; graphql-js builds /schema.graphql. The
# gateways' logs land in e2e/clients/artifacts/ (ARTIFACTS_DIR to put them
# elsewhere).
#
#   bash e2e/clients/run.sh      (needs go, node >= 20, npm)
set -euo pipefail
cd "$(dirname "$0")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "clients: building the gateway"
(cd ../.. && go build -o "$tmp/gateway" .)
npm ci --no-audit --no-fund
GATEWAY_BIN="$tmp/gateway" npm test
