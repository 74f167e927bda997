#!/usr/bin/env bash
# Start the gateway on the embedded catalogue, time until /readyz answers
# 200, then report its resident memory after serving one compressed body.
#
#   go build -o gateway . && bench/startup.sh ./gateway
set -euo pipefail
bin=$(realpath "${1:-./gateway}")
cd "$(dirname "$0")/.."
. bench/lib.sh
start=$(date +%s%N)
gateway_start --bin "$bin" gateway
end=$(date +%s%N)
echo "ready after $(( (end-start)/1000000 )) ms"
curl -s -o /dev/null "${gateway_addr[gateway]}/items" -H 'Accept-Encoding: br'
grep -E 'VmRSS|VmHWM' "/proc/${gateway_pid[gateway]}/status"
