#!/usr/bin/env bash
# Query shapes the engine should run as fast as a plain page, in one run
# (response cache off): a filtered and ordered page against the same page
# plain (a filter compiled once per request and evaluated over columns
# built once per snapshot, its scan stopped once the page is full), and a
# page of quests with their prerequisites (a reference by name) against
# the same page with a forward reference. Each is also run with
# -engine=false, gqlgen's executor alone.
#
# The filtered page's nameContains term is a variable drawn at random, per
# request, from the words of the catalogue's item names (one document, so
# one plan; a different term, so a different page, each time): one term
# repeated would measure one page, matched once and then rendered from
# what the engine keeps.
#
#   bench/shapes.sh [seconds]     (needs wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${1:-10}
gateway_build
gateway_start plans -response-cache-bytes=0 -access-log=false
gateway_start gqlgen -response-cache-bytes=0 -access-log=false -engine=false
plans_addr=${gateway_addr[plans]} plans_pid=${gateway_pid[plans]} gqlgen_addr=${gateway_addr[gqlgen]}

declare -A query=(
  [plain]='{ items(first: 50) { nodes { id name value monsterDrops { monster { name combatLevel } } } } }'
  [filtered]='query($term: String) { items(first: 50, filter: {nameContains: $term}, orderBy: {field: VALUE, direction: DESC}) { nodes { id name value monsterDrops { monster { name combatLevel } } } } }'
  [forward]='{ quests(first: 50) { nodes { questName questRewards { item { name } } } } }'
  [prereq]='{ quests(first: 50) { nodes { questName prerequisite { questName prerequisite { questName } } } } }'
)
rps() { wrk -t2 -c32 -d"${secs}s" -s "$1" "$2" | awk '/Requests\/sec/ {print $2}'; }
# ticks: the CPU time the plans' gateway has used, in clock ticks. On a
# machine shared with other work req/s move with the neighbours; the CPU
# each request costs the gateway does not, so the ratio is given by both.
ticks() { awk '{print $14 + $15}' "/proc/$plans_pid/stat"; }
hz=$(getconf CLK_TCK)
printf '%-9s %14s %16s %14s\n' query "plans req/s" "plans CPU µs/req" "gqlgen req/s"
declare -A plans cpu
# terms: the distinct words of the item names, lower-cased, as a Lua table.
terms=$(curl -sf "$plans_addr/graphql" -H 'Content-Type: application/json' \
  --data-binary '{"query":"{ items(first: 1000) { nodes { name } } }"}' |
  grep -o '"name":"[^"]*"' | cut -d'"' -f4 | tr 'A-Z ' 'a-z\n' | tr -cd 'a-z\n' |
  awk 'length($0) >= 3' | sort -u | sed 's/.*/"&",/' | tr -d '\n')
[ -n "$terms" ] || { echo "no terms" >&2; exit 1; }
for q in plain filtered forward prereq; do
  post_script "${query[$q]}" "$tmp/$q.json" "$tmp/$q.lua"
  if [ "$q" = filtered ]; then
    # The same document every time, its variable drawn per request.
    cat > "$tmp/$q.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local terms = {$terms}
local query = [==[$(cat "$tmp/$q.json")]==]
local head = query:sub(1, -2) .. ',"variables":{"term":"'
math.randomseed(os.time())
request = function()
  return wrk.format(nil, nil, nil, head .. terms[math.random(#terms)] .. '"}}')
end
LUA
  fi
  curl -sf "$plans_addr/graphql" -H 'Content-Type: application/json' --data-binary @"$tmp/$q.json" | grep -q '^{"data":' \
    || { echo "$q failed" >&2; exit 1; }
  t0=$(ticks)
  plans[$q]=$(rps "$tmp/$q.lua" "http://$plans_addr/graphql")
  cpu[$q]=$(echo "($(ticks) - $t0) * 1000000 / $hz / (${plans[$q]} * $secs)" | bc -l)
  g=$(rps "$tmp/$q.lua" "http://$gqlgen_addr/graphql")
  printf '%-9s %14s %16.1f %14s\n' "$q" "${plans[$q]}" "${cpu[$q]}" "$g"
done
printf 'filtered / plain, plans: %.2f (by CPU per request: %.2f)\n' \
  "$(echo "${plans[filtered]} / ${plans[plain]}" | bc -l)" "$(echo "${cpu[plain]} / ${cpu[filtered]}" | bc -l)"
printf 'prerequisites / forward references, plans: %.2f\n' "$(echo "${plans[prereq]} / ${plans[forward]}" | bc -l)"
