#!/usr/bin/env bash
# Start the gateway on the embedded catalogue, time until /readyz answers
# 200, then report its resident memory after serving one compressed body.
#
#   go build -o gateway . && bench/startup.sh ./gateway
set -euo pipefail
bin=${1:-./gateway}; port=${2:-18081}
start=$(date +%s%N)
"$bin" -addr 127.0.0.1:$port 2>/dev/null & pid=$!
trap 'kill $pid' EXIT
for i in $(seq 1 500); do
  if curl -sf -o /dev/null 127.0.0.1:$port/readyz; then break; fi
  sleep 0.005
done
end=$(date +%s%N)
echo "ready after $(( (end-start)/1000000 )) ms"
curl -s -o /dev/null 127.0.0.1:$port/items -H 'Accept-Encoding: br'
grep -E 'VmRSS|VmHWM' /proc/$pid/status
