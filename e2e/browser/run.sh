#!/usr/bin/env bash
# Browser tests: the playground and the explorer in headless Chromium
# (Debian's chromium package), driven by playwright-core, against the real
# gateway on 127.0.0.1. Screenshots and gateway logs land in
# e2e/browser/artifacts/ (ARTIFACTS_DIR to put them elsewhere).
#
#   bash e2e/browser/run.sh      (needs go, node >= 20, npm, /usr/bin/chromium)
set -euo pipefail
cd "$(dirname "$0")/../.."

# The tests start their gateways through e2e/gateway.mjs, which runs
# e2e/gateway.sh, the starter every script uses.
. e2e/gateway.sh
echo "browser: building the gateway"
gateway_build
cd e2e/browser
npm ci --no-audit --no-fund
rm -rf "${ARTIFACTS_DIR:-artifacts}"
GATEWAY_BIN="$gateway_bin" npm test
echo "browser: screenshots in $(cd "${ARTIFACTS_DIR:-artifacts}" && pwd)"
