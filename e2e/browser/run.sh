#!/usr/bin/env bash
# Browser tests: the playground and the explorer in headless Chromium
# (Debian's chromium package), driven by playwright-core, against the real
# gateway on 127.0.0.1. Screenshots and gateway logs land in
# e2e/browser/artifacts/ (ARTIFACTS_DIR to put them elsewhere).
#
#   bash e2e/browser/run.sh      (needs go, node >= 20, npm, /usr/bin/chromium)
set -euo pipefail
cd "$(dirname "$0")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "browser: building the gateway"
(cd ../.. && go build -o "$tmp/gateway" .)
npm ci --no-audit --no-fund
rm -rf "${ARTIFACTS_DIR:-artifacts}"
GATEWAY_BIN="$tmp/gateway" npm test
echo "browser: screenshots in $(cd "${ARTIFACTS_DIR:-artifacts}" && pwd)"
