#!/usr/bin/env bash
# Nested GraphQL queries under load: throughput and latency at 32
# connections, in one run, with wrk (apt-get install wrk).
#
#   bench/graphql.sh [seconds]
#
# The query is an item list page: 50 items, each with its crafting
# materials' items and the monsters that drop it (two kinds of reference,
# two levels), as a frontend would ask.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

go build -o "$tmp/gateway" .
"$tmp/gateway" -addr 127.0.0.1:18482 -access-log=false 2>/dev/null &
for _ in $(seq 1 200); do curl -sf -o /dev/null 127.0.0.1:18482/readyz && break; sleep 0.05; done

query='{ items(first: 50) { totalCount nodes { id name rarity value crafting { materials { amount item { id name rarity } } } monsterDrops { baseChance monster { id name combatLevel } } } } }'
body=$(printf '{"query":"%s"}' "$query")
curl -sf 127.0.0.1:18482/graphql -H 'Content-Type: application/json' -d "$body" | grep -q '"totalCount"' \
  || { echo "the query failed" >&2; exit 1; }
cat > "$tmp/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [[$body]]
LUA
wrk -t2 -c32 -d"${secs}s" --latency -s "$tmp/post.lua" http://127.0.0.1:18482/graphql \
  | grep -E 'Requests/sec|Latency|50%|90%|99%|Non-2xx'
