#!/usr/bin/env bash
# The real GraphQL clients against the real gateway on 127.0.0.1:
# graphql-ws (over ws) and graphql-sse subscribe and get catalogueChanged
# when a stand-in upstream changes, and their live queries (@live) are
# answered again when it changes what they read; graphql-js builds
# /schema.graphql; Apollo Client 4 (both incremental formats) and urql
# read @defer and @stream over multipart/mixed. The
# gateways' logs land in e2e/clients/artifacts/ (ARTIFACTS_DIR to put them
# elsewhere).
#
#   bash e2e/clients/run.sh      (needs go, node >= 20, npm)
set -euo pipefail
cd "$(dirname "$0")/../.."

# The tests start their gateways through e2e/gateway.mjs, which runs
# e2e/gateway.sh, the starter every script uses.
. e2e/gateway.sh
echo "clients: building the gateway"
gateway_build
cd e2e/clients
npm ci --no-audit --no-fund
GATEWAY_BIN="$gateway_bin" npm test
