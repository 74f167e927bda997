#!/usr/bin/env bash
# Peak memory under the heaviest queries the default limits admit: 32
# connections sending one query for 20 s, the response cache off (so every
# request is executed), on the embedded catalogue.
#
#   bench/heaviest.sh [seconds]     (needs wrk: apt-get install wrk)
#
# Prints, per query, its answer's size, requests per second and the
# gateway's peak resident memory (VmHWM) over the run. The queries:
#   plans   a page of 1000 items with every scalar field, run by a plan;
#   gqlgen  the same page, filtered (nameContains ""), with
#           -engine=false: gqlgen's executor, the heavier one, about
#           20 allocations a value;
#   nested  200 items with every monster dropping each (Q3 with more fields),
#           near the cost limit.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${1:-20}
gateway_build

scalars='id imageUrl name rarity value type healingAmount farmingLevel attackBonus strengthBonus defenceBonus healthBonus bowDamage bowCrit bowAccuracy bowSpeed description tradable limited'
declare -A query=(
  [plans]="{ items(first: 1000) { totalCount nodes { $scalars } } }"
  [gqlgen]="{ items(first: 1000, filter: {nameContains: \\\"\\\"}) { totalCount nodes { $scalars } } }"
  [nested]='{ items(first: 200) { nodes { id name rarity value monsterDrops { monsterId baseChance monster { id name combatLevel } } } } }'
)
printf '%-8s %12s %10s %14s\n' query "answer (B)" "req/s" "peak RSS (MiB)"
for q in plans gqlgen nested; do
  args=()
  [ "$q" = gqlgen ] && args=(-engine=false)
  gateway_start "$q" -response-cache-bytes=0 -access-log=false "${args[@]}"
  addr=${gateway_addr[$q]} pid=${gateway_pid[$q]}
  post_script "${query[$q]}" "$tmp/$q.json" "$tmp/$q.lua"
  size=$(curl -s "$addr/graphql" -H 'Content-Type: application/json' --data-binary @"$tmp/$q.json" | tee "$tmp/$q.out" | wc -c)
  grep -q '^{"data":' "$tmp/$q.out" || { echo "$q failed: $(head -c 300 "$tmp/$q.out")" >&2; exit 1; }
  rps=$(wrk -t2 -c32 -d"${secs}s" -s "$tmp/$q.lua" "http://$addr/graphql" | awk '/Requests\/sec/ {print $2}')
  hwm=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' /proc/$pid/status)
  printf '%-8s %12s %10s %14s\n' "$q" "$size" "$rps" "$hwm"
  gateway_stop "$q" || true
done
