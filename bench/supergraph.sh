#!/usr/bin/env bash
# A cross-subgraph query through a federation router, against the same
# fields asked of the gateway directly, in one run: the example supergraph
# of e2e/supergraph (the inventory subgraph, the gateway as the catalogue
# subgraph, Hive Gateway's runtime as the router; docs/graphql.md, "The
# example supergraph, locally").
#
#   bench/supergraph.sh [seconds]     (needs wrk, node >= 20 and npm: apt-get install wrk)
#
# The query (SG) asks 20 players' inventories, 161 entries, with each
# item's id, name and rarity: the router asks the inventory, then the
# gateway's _entities for their 145 distinct items in one request. Beside
# it, POSTed to the gateway directly: that _entities request, and the same
# fields of as many items as entries asked as the gateway's own list,
# items(first: 161). The gateway's response cache is off, so every
# request is executed. wrk POSTs each at 32 connections; everything runs
# on this machine, on loopback, so the ratios matter, not the absolute
# figures. The router is one Node process: it, not the gateway, sets the
# first row's pace.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${1:-10}

[ -d e2e/supergraph/node_modules ] || (cd e2e/supergraph && npm ci --no-audit --no-fund >/dev/null)
gateway_build
gateway_start catalogue -response-cache-bytes=0
gateway=${gateway_addr[catalogue]}
# The router takes a free port too (--port 0) and prints its URL.
node e2e/supergraph/serve.mjs --catalogue "http://$gateway/graphql" --port 0 > "$tmp/serve.log" 2>&1 &
serve=$!
at_exit "kill $serve 2>/dev/null; wait $serve 2>/dev/null"
for _ in $(seq 1 200); do grep -q '^router:' "$tmp/serve.log" && break; sleep 0.05; done
router=$(sed -n 's|^router: http://\([^/]*\).*|\1|p' "$tmp/serve.log")
[ -n "$router" ] || { echo "the router did not start: $(cat "$tmp/serve.log")" >&2; exit 1; }

# The three bodies: the router's query, an _entities request as the router
# sends it (the same selection, a representation per distinct item) and
# the gateway's own list of as many items as entries.
node --input-type=module -e '
import { writeFileSync } from "node:fs";
import { players } from "./e2e/supergraph/inventory.mjs";
const ids = players(20).flatMap((p) => p.inventory.map((e) => e.itemId));
const q = (query, variables) => JSON.stringify(variables ? { query, variables } : { query });
writeFileSync(process.argv[1] + "/SG.json", q("{ players(first: 20) { id inventory { quantity item { id name rarity } } } }"));
writeFileSync(process.argv[1] + "/own.json", q(`{ items(first: ${ids.length}) { nodes { id name rarity } } }`));
writeFileSync(process.argv[1] + "/entities.json", q(
  "query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Item { name rarity } } }",
  { r: [...new Set(ids)].map((id) => ({ __typename: "Item", id })) }));
' "$tmp"
for b in SG own entities; do
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [==[%s]==]\n' "$(cat "$tmp/$b.json")" > "$tmp/$b.lua"
done

# Each answers what it should before anything is measured: 161 entries
# through the router, data from the gateway either way.
curl -sf "$router/graphql" -H 'Content-Type: application/json' --data-binary @"$tmp/SG.json" > "$tmp/SG.out"
[ "$(grep -o '"quantity"' "$tmp/SG.out" | wc -l)" -eq 161 ] || { echo "the router's answer: $(head -c 300 "$tmp/SG.out")" >&2; exit 1; }
for b in own entities; do
  curl -sf "$gateway/graphql" -H 'Content-Type: application/json' --data-binary @"$tmp/$b.json" > "$tmp/$b.out"
  grep -q '^{"data":' "$tmp/$b.out" || { echo "$b: $(head -c 300 "$tmp/$b.out")" >&2; exit 1; }
done

rps() {
  out=$(wrk -t2 -c32 -d"${secs}s" --latency "$@")
  if grep -q 'Non-2xx' <<<"$out"; then echo "non-2xx answers from $*" >&2; exit 1; fi
  awk '/Requests\/sec/ {r=$2} /50%/ {p50=$2} /99%/ {p99=$2} END {printf "%s %s %s\n", r, p50, p99}' <<<"$out"
}
printf '%-46s %12s %10s %10s\n' "161 items' id, name and rarity" "req/s" "p50" "p99"
read -r r p50 p99 <<<"$(rps -s "$tmp/SG.lua" "http://$router/graphql")"
printf '%-46s %12s %10s %10s\n' "through the router (inventory, then _entities)" "$r" "$p50" "$p99"
read -r r p50 p99 <<<"$(rps -s "$tmp/entities.lua" "http://$gateway/graphql")"
printf '%-46s %12s %10s %10s\n' "the gateway: the router's _entities request" "$r" "$p50" "$p99"
read -r r p50 p99 <<<"$(rps -s "$tmp/own.lua" "http://$gateway/graphql")"
printf '%-46s %12s %10s %10s\n' "the gateway: its own list, items(first: 161)" "$r" "$p50" "$p99"
