#!/usr/bin/env bash
# Query shapes the engine should run as fast as a plain page, in one run
# (response cache off): a filtered and ordered page against the same page
# plain (a filter and an ordering only intersect and slice indexes built
# once per snapshot), and a page of quests with their prerequisites (a
# reference by name) against the same page with a forward reference. Each
# is also run with -engine=false, gqlgen's executor alone.
#
#   bench/shapes.sh [seconds]     (needs wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${1:-10}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/gateway" .
"$tmp/gateway" -addr 127.0.0.1:18486 -response-cache-bytes=0 -access-log=false 2>/dev/null &
"$tmp/gateway" -addr 127.0.0.1:18487 -response-cache-bytes=0 -access-log=false -engine=false 2>/dev/null &
wait_ready 18486 18487

declare -A query=(
  [plain]='{ items(first: 50) { nodes { id name value monsterDrops { monster { name combatLevel } } } } }'
  [filtered]='{ items(first: 50, filter: {nameContains: \"e\"}, orderBy: {field: VALUE, direction: DESC}) { nodes { id name value monsterDrops { monster { name combatLevel } } } } }'
  [forward]='{ quests(first: 50) { nodes { questName questRewards { item { name } } } } }'
  [prereq]='{ quests(first: 50) { nodes { questName prerequisite { questName prerequisite { questName } } } } }'
)
rps() { wrk -t2 -c32 -d"${secs}s" -s "$1" "$2" | awk '/Requests\/sec/ {print $2}'; }
printf '%-9s %14s %14s\n' query "plans req/s" "gqlgen req/s"
declare -A plans
for q in plain filtered forward prereq; do
  post_script "${query[$q]}" "$tmp/$q.json" "$tmp/$q.lua"
  curl -sf 127.0.0.1:18486/graphql -H 'Content-Type: application/json' --data-binary @"$tmp/$q.json" | grep -q '^{"data":' \
    || { echo "$q failed" >&2; exit 1; }
  plans[$q]=$(rps "$tmp/$q.lua" http://127.0.0.1:18486/graphql)
  g=$(rps "$tmp/$q.lua" http://127.0.0.1:18487/graphql)
  printf '%-9s %14s %14s\n' "$q" "${plans[$q]}" "$g"
done
printf 'filtered / plain, plans: %.2f\n' "$(echo "${plans[filtered]} / ${plans[plain]}" | bc -l)"
printf 'prerequisites / forward references, plans: %.2f\n' "$(echo "${plans[prereq]} / ${plans[forward]}" | bc -l)"
