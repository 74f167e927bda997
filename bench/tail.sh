#!/usr/bin/env bash
# Q1's latency tail: the gateway (the response cache off) beside the floor,
# bench/floor, a net/http server that reads the request and answers the
# same bytes and does nothing else. Three setups:
#
#   shared      the server and wrk (2 threads, 32 connections) on the same
#               cores, as docs/speed.md measures the gateway beside the
#               Node.js servers;
#   core-each   the server alone on CPU 0 and wrk (1 thread) on CPU 1
#               (taskset; skipped with fewer than 2 CPUs or no taskset);
#   think-time  as shared, but 64 connections that each wait 2 ms
#               between requests (wrk's delay()), so that no connection's
#               next request is already there when its last one ends.
#
#   bench/tail.sh [seconds]     (needs wrk: apt-get install wrk)
#
# What the floor shows is what Go's HTTP server and scheduler give any
# program in that setup; the gap above it is the gateway's. Then a 1 s
# execution trace of the gateway under Q1 on shared cores, read by
# bench/tailtrace: the longest waits to run, and what ran meanwhile.
# docs/speed.md ("Who ran instead") says what the figures showed.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${1:-6}

gateway_build
go build -o "$tmp/floor" ./bench/floor
go build -o "$tmp/tailtrace" ./bench/tailtrace
post_script '{ item(id: 5) { id name value } }' "$tmp/q1.json" "$tmp/q1.lua"
{ cat "$tmp/q1.lua"; echo 'function delay() return 2 end'; } > "$tmp/q1-think.lua"

# serve NAME CPUS: starts the gateway or the floor on a free loopback
# port, on the CPUs listed (taskset's syntax; "" for all), and waits until
# it answers (the floor answers /readyz as it answers everything). Its
# address is then $addr, and the gateway's pprof address $pprof.
serve() {
  serving=$1
  case $1 in
    gateway) gateway_start --cpus "$2" gateway -response-cache-bytes=0 -pprof-addr 127.0.0.1:0
      pprof=$(sed -n 's/.*"msg":"serving pprof".*"addr":"\([^"]*\)".*/\1/p' "$tmp/gateway.log" | head -n 1) ;;
    floor) gateway_start --cpus "$2" --bin "$tmp/floor" floor -body "$tmp/q1.answer" ;;
  esac
  addr=${gateway_addr[$1]}
}

unserve() { gateway_stop "$serving" || true; }

# measure SETUP NAME SCRIPT THREADS CONNS CPUS: a second of warm-up, then
# $secs measured; one line of req/s and latency percentiles.
measure() {
  local setup=$1 name=$2 script=$3 threads=$4 conns=$5 pin=()
  [ -n "$6" ] && pin=(taskset -c "$6")
  "${pin[@]}" wrk -t"$threads" -c"$conns" -d1s -s "$script" "http://$addr/graphql" >/dev/null
  "${pin[@]}" wrk -t"$threads" -c"$conns" -d"${secs}s" --latency -s "$script" "http://$addr/graphql" |
    awk -v setup="$setup" -v name="$name" '
      /Requests\/sec/ { rps = $2 }
      $1 == "50%" { p50 = $2 } $1 == "90%" { p90 = $2 } $1 == "99%" { p99 = $2 }
      /Non-2xx/ { bad = 1 }
      END {
        if (bad || rps == "") { print setup ": " name " answered with errors" > "/dev/stderr"; exit 1 }
        printf "%-11s %-8s %10s req/s   p50 %8s   p90 %8s   p99 %8s\n", setup, name, rps, p50, p90, p99
      }'
}

# The floor answers with the gateway's own bytes.
serve gateway ""
curl -sf "$addr/graphql" -H 'Content-Type: application/json' --data-binary @"$tmp/q1.json" > "$tmp/q1.answer"
grep -q '^{"data":{"item":' "$tmp/q1.answer" || { echo "Q1 failed: $(head -c 300 "$tmp/q1.answer")" >&2; exit 1; }
unserve

echo "Q1 $(cat "$tmp/q1.json"), ${secs}s each, $(nproc) CPUs"
for name in gateway floor; do
  serve "$name" ""
  measure shared "$name" "$tmp/q1.lua" 2 32 ""
  measure think-time "$name" "$tmp/q1-think.lua" 2 64 ""
  unserve
done
# The trace: taken a second into a 3 s run, for a second.
serve gateway ""
wrk -t2 -c32 -d3s -s "$tmp/q1.lua" "http://$addr/graphql" >/dev/null &
load=$!
sleep 1
curl -sf -o "$tmp/q1.trace" "$pprof/debug/pprof/trace?seconds=1"
wait "$load"
unserve
echo "trace of the gateway under Q1, shared cores:"
"$tmp/tailtrace" -longest 5 "$tmp/q1.trace" | sed 's/^/  /'

if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
  for name in gateway floor; do
    serve "$name" 0
    measure core-each "$name" "$tmp/q1.lua" 1 32 1
    unserve
  done
else
  echo "core-each: skipped (needs 2 CPUs and taskset)"
fi
