#!/usr/bin/env bash
# REST paths against nginx serving the same bytes, side by side, in one run.
#
#   bench/rest.sh [seconds]        (needs wrk and nginx: apt-get install wrk nginx-light)
#
# The gateway serves the embedded /items (1.27 MB; 125 KB gzipped); nginx
# serves the same file, and with gzip_static its precompressed .gz, the
# nearest nginx comes to what the gateway does. Both run on this machine
# with wrk, so the absolute figures say little; the ratio is the point.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
. bench/lib.sh
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; stop_nginx "$tmp"; rm -rf "$tmp"' EXIT

go build -o "$tmp/gateway" .
mkdir -p "$tmp/www"
cp catalogue/embedded/items.json "$tmp/www/items"
gzip -9 -k -c "$tmp/www/items" > "$tmp/www/items.gz"
start_nginx "$tmp" 18480 1 "root $tmp/www; location / { gzip_static on; }"
"$tmp/gateway" -addr 127.0.0.1:18481 -access-log=false 2>/dev/null &
for _ in $(seq 1 200); do curl -sf -o /dev/null 127.0.0.1:18481/readyz && break; sleep 0.05; done

# Both must answer the same bytes before anything is measured.
for port in 18480 18481; do
  curl -sf -H 'Accept-Encoding: identity' 127.0.0.1:$port/items | cmp -s - catalogue/embedded/items.json \
    || { echo "port $port does not serve /items byte for byte" >&2; exit 1; }
done

rps() {
  out=$(wrk -t1 -c32 -d"${secs}s" --latency "$@")
  if grep -q 'Non-2xx' <<<"$out"; then echo "non-2xx answers from $*" >&2; exit 1; fi
  awk '/Requests\/sec/ {r=$2} /99%/ {p99=$2} END {print r, p99}' <<<"$out"
}
printf '%-28s %14s %14s %8s\n' "case" "nginx req/s" "gateway req/s" "ratio"
for enc in identity gzip; do
  n=$(rps -H "Accept-Encoding: $enc" http://127.0.0.1:18480/items)
  g=$(rps -H "Accept-Encoding: $enc" http://127.0.0.1:18481/items)
  nr=${n%% *}; gr=${g%% *}
  printf '%-28s %14s %14s %8.2f   (p99 nginx %s, gateway %s)\n' "/items $enc" "$nr" "$gr" "$(echo "$gr / $nr" | bc -l)" "${n#* }" "${g#* }"
done
