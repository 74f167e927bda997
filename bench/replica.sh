#!/usr/bin/env bash
# One replica's figures for "Running in production": start-up to ready from
# an upstream (nginx serving the embedded catalogue's files), with and
# without a warm disk cache, and resident memory when ready and after 10 s
# of nested queries with the response cache on and off.
#
#   bench/replica.sh [rate]     rate: nginx's per-body limit_rate, e.g. 256k
#                               (default none: loopback speed)
#   (needs nginx and wrk: apt-get install nginx-light wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
rate=${1:-0}
. bench/lib.sh
gateway_build
mkdir -p "$tmp/cache"
start_nginx "$tmp" 1 "root $PWD/catalogue/embedded; location / { limit_rate $rate; try_files \$uri.json =404; }"

rss() { awk '/VmRSS/{r=$2} /VmHWM/{h=$2} END{printf "rss %d MiB (peak %d MiB)", r/1024, h/1024}' "/proc/${gateway_pid[replica]}/status"; }
start() { # start FLAGS...: start the gateway and wait until it is ready
  local t0; t0=$(date +%s%N)
  gateway_start --wait 60 replica -base-url "http://127.0.0.1:$nginx_port" -access-log=false "$@"
  echo "ready in $(( ($(date +%s%N) - t0) / 1000000 )) ms, $(rss)"
}
stop() { gateway_stop replica || true; }

printf 'no disk cache:         '; start; stop
printf 'disk cache, first run: '; start -cache-dir "$tmp/cache"; stop
printf 'disk cache, warm:      '; start -cache-dir "$tmp/cache"; stop

cat > "$tmp/q2.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"query":"{ monsters(first: 100) { nodes { id name drops { itemId item { id name rarity } } } } }"}'
LUA
for cache in 64MiB 0; do
  start -response-cache-bytes=$cache >/dev/null
  rps=$(wrk -t2 -c32 -d10s -s "$tmp/q2.lua" "http://${gateway_addr[replica]}/graphql" | awk '/Requests\/sec/{print $2}')
  echo "10 s of nested queries, response cache $cache: $rps req/s, $(rss)"
  stop
done
