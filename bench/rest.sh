#!/usr/bin/env bash
# REST paths against nginx serving the same bytes, side by side, in one run.
#
#   bench/rest.sh [seconds]        (needs wrk and nginx: apt-get install wrk nginx-light)
#
# The gateway serves the embedded /items (1.27 MB; 125 KB gzipped); nginx
# serves the same file, and with gzip_static its precompressed .gz, the
# nearest nginx comes to what the gateway does. bench/floor, a net/http
# server that only writes the same bytes from memory, shows what any Go
# server gets here: the gateway against it is the gateway's own cost. All
# run on this machine with wrk, so the absolute figures say little; the
# ratios are the point.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
. bench/lib.sh

gateway_build
go build -o "$tmp/floor" ./bench/floor
mkdir -p "$tmp/www"
cp catalogue/embedded/items.json "$tmp/www/items"
gzip -9 -k -c "$tmp/www/items" > "$tmp/www/items.gz"
start_nginx "$tmp" 1 "root $tmp/www; location / { gzip_static on; }"
gateway_start gateway -access-log=false
gateway_start --bin "$tmp/floor" floor -body "$tmp/www/items"
gateway_start --bin "$tmp/floor" floor.gz -body "$tmp/www/items.gz"
nginx=127.0.0.1:$nginx_port gateway=${gateway_addr[gateway]}
declare -A floor=([identity]=${gateway_addr[floor]} [gzip]=${gateway_addr[floor.gz]})

# Both must answer the same bytes before anything is measured.
for addr in "$nginx" "$gateway" "${floor[identity]}"; do
  for _ in $(seq 1 200); do curl -sf -o /dev/null "$addr/items" && break; sleep 0.05; done
  curl -sf -H 'Accept-Encoding: identity' "$addr/items" | cmp -s - catalogue/embedded/items.json \
    || { echo "$addr does not serve /items byte for byte" >&2; exit 1; }
done

rps() {
  out=$(wrk -t1 -c32 -d"${secs}s" --latency "$@")
  if grep -q 'Non-2xx' <<<"$out"; then echo "non-2xx answers from $*" >&2; exit 1; fi
  awk '/Requests\/sec/ {r=$2} /99%/ {p99=$2} END {print r, p99}' <<<"$out"
}
printf '%-16s %12s %12s %14s %14s %14s\n' "case" "nginx req/s" "floor req/s" "gateway req/s" "gateway/nginx" "gateway/floor"
for enc in identity gzip; do
  n=$(rps -H "Accept-Encoding: $enc" "http://$nginx/items")
  f=$(rps -H "Accept-Encoding: $enc" "http://${floor[$enc]}/items")
  g=$(rps -H "Accept-Encoding: $enc" "http://$gateway/items")
  nr=${n%% *}; fr=${f%% *}; gr=${g%% *}
  printf '%-16s %12s %12s %14s %14.2f %14.2f   (p99 nginx %s, floor %s, gateway %s)\n' "/items $enc" "$nr" "$fr" "$gr" \
    "$(echo "$gr / $nr" | bc -l)" "$(echo "$gr / $fr" | bc -l)" "${n#* }" "${f#* }" "${g#* }"
done
