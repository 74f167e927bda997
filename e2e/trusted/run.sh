#!/usr/bin/env bash
# Trusted documents with the manifests the ecosystem's tools write: the
# operations of a small client (src/) made into Apollo's persisted query
# manifest by @apollo/generate-persisted-query-manifest and into GraphQL
# Code Generator's persisted documents by its client preset (against the
# schema the gateway serves), then the real gateway started with each in
# enforce mode. The gateways' logs land in e2e/trusted/artifacts/
# (ARTIFACTS_DIR to put them elsewhere).
#
#   bash e2e/trusted/run.sh      (needs go, node >= 20, npm)
set -euo pipefail
cd "$(dirname "$0")/../.."

. e2e/gateway.sh
echo "trusted: building the gateway"
gateway_build
gateway_start trusted
addr=${gateway_addr[trusted]}
echo "trusted: gateway ready on $addr"
mkdir -p e2e/trusted/generated
curl -sf "http://$addr/schema.graphql" -o e2e/trusted/generated/schema.graphql

cd e2e/trusted
npm ci --no-audit --no-fund
npm run manifests
# The Go tests read copies of what the tools wrote; the tools are
# deterministic, so a difference means the copies are stale.
for f in persisted-query-manifest.json:apollo-persisted-query-manifest.json gql/persisted-documents.json:codegen-persisted-documents.json; do
  if ! cmp -s "generated/${f%%:*}" "../../graphqlhttp/testdata/trusted/${f##*:}"; then
    echo "graphqlhttp/testdata/trusted/${f##*:} differs from what the tool writes now (e2e/trusted/generated/${f%%:*}): copy it over"
    exit 1
  fi
done
GATEWAY_BIN="$gateway_bin" npm test
