#!/usr/bin/env bash
# GraphQL under load, side by side in one run: the execution engine (the
# response cache off), the response cache (on, the default), and nginx
# serving the very same answer bytes, the ceiling for a repeated query.
#
#   bench/graphql.sh [seconds]     (needs wrk and nginx: apt-get install wrk nginx-light)
#
# The queries are those of docs/speed.md's tables: Q2, 100 monsters with
# their drops' items; Q3, 200 items with the monsters that drop them. Each
# is POSTed by wrk at 32 connections; everything runs on this machine, on
# loopback, so the ratios matter, not the absolute figures.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${1:-10}

gateway_build
gateway_start engine -response-cache-bytes=0
gateway_start cache
engine=${gateway_addr[engine]} cache=${gateway_addr[cache]}

declare -A query=(
  [Q2]='{ monsters(first: 100) { nodes { id name drops { itemId item { id name rarity } } } } }'
  [Q3]='{ items(first: 200) { nodes { id name monsterDrops { monsterId monster { id name combatLevel } } } } }'
)
mkdir -p "$tmp/www/gql"
for q in Q2 Q3; do
  post_script "${query[$q]}" "$tmp/$q.json" "$tmp/$q.lua"
  curl -sf "$engine/graphql" -H 'Content-Type: application/json' --data-binary @"$tmp/$q.json" > "$tmp/www/gql/$q"
  grep -q '^{"data":' "$tmp/www/gql/$q" || { echo "$q failed: $(head -c 300 "$tmp/www/gql/$q")" >&2; exit 1; }
done
# nginx's static module refuses POST with 405; answer it with the file.
start_nginx "$tmp" auto "root $tmp/www; location /gql/ { error_page 405 =200 \$uri; }"

# All three must answer the same bytes before anything is measured.
for q in Q2 Q3; do
  for url in "$cache/graphql" "127.0.0.1:$nginx_port/gql/$q"; do
    curl -sf "$url" -H 'Content-Type: application/json' --data-binary @"$tmp/$q.json" | cmp -s - "$tmp/www/gql/$q" \
      || { echo "$url does not answer $q with the engine's bytes" >&2; exit 1; }
  done
done

rps() {
  out=$(wrk -t2 -c32 -d"${secs}s" --latency "$@")
  if grep -q 'Non-2xx' <<<"$out"; then echo "non-2xx answers from $*" >&2; exit 1; fi
  awk '/Requests\/sec/ {r=$2} /50%/ {p50=$2} /99%/ {p99=$2} END {printf "%s %s %s\n", r, p50, p99}' <<<"$out"
}
printf '%-4s %-26s %12s %10s %10s %12s\n' "" "server" "req/s" "p50" "p99" "vs nginx"
for q in Q2 Q3; do
  read -r nr np50 np99 <<<"$(rps -s "$tmp/$q.lua" "http://127.0.0.1:$nginx_port/gql/$q")"
  read -r er ep50 ep99 <<<"$(rps -s "$tmp/$q.lua" "http://$engine/graphql")"
  read -r cr cp50 cp99 <<<"$(rps -s "$tmp/$q.lua" "http://$cache/graphql")"
  printf '%-4s %-26s %12s %10s %10s %12s\n' "$q" "nginx, same bytes" "$nr" "$np50" "$np99" "1.00"
  printf '%-4s %-26s %12s %10s %10s %12.3f\n' "$q" "gateway, cache off" "$er" "$ep50" "$ep99" "$(echo "$er / $nr" | bc -l)"
  printf '%-4s %-26s %12s %10s %10s %12.3f\n' "$q" "gateway, cache on" "$cr" "$cp50" "$cp99" "$(echo "$cr / $nr" | bc -l)"
done
