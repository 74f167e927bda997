#!/usr/bin/env bash
# The gateway as the clients people use see it, in three modes:
#
#   headers     each mix asked as wrk and curl ask (no Accept-Encoding) and
#               as a browser's GraphQL client asks (Accept-Encoding: gzip,
#               deflate, br, zstd; Accept: application/graphql-response+json),
#               and the ratio of the two;
#   core each   the gateway on its own cores and the load generator on
#               others (taskset), so that neither takes the other's CPU:
#               per-core figures (skipped, all sharing, with fewer than 2
#               CPUs or no taskset);
#   open loop   vegeta (a module tool) holding fixed RATES without waiting
#               for answers, as users arrive: p50 and p99 at each rate, with
#               the rate it actually held and its share of successes.
#
#   bench/clients.sh [seconds]      (needs wrk: apt-get install wrk)
#
# The mixes (bench/mix writes them): q1, one item; monster, a monster's
# page with a random id, its drops and who else drops them; page, 50 items
# with the monsters that drop them; filtered, that page with a random one-
# or two-letter name term in a random order. No answer repeats in a random
# mix, and the response cache is off (GATEWAY_ARGS), so every answer is
# made, and compressed, for its request. docs/speed.md publishes the
# figures.
#
# Environment: MIXES ("q1 monster page filtered"), ROUNDS (2, closed loop,
# interleaved), RATES (open loop, req/s; "2000 4000"; "" skips it),
# CONNS (32), SERVER_CPUS (0), LOAD_CPUS (1), GATEWAY_ARGS
# (-response-cache-bytes=0).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${1:-10}
mixes=${MIXES:-q1 monster page filtered}
rounds=${ROUNDS:-2}
rates=${RATES-2000 4000}
conns=${CONNS:-32}

srv= load=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  srv=${SERVER_CPUS:-0} load=(taskset -c "${LOAD_CPUS:-1}")
  echo "core each: the gateway on CPU ${SERVER_CPUS:-0}, the load generator on CPU ${LOAD_CPUS:-1}"
else
  echo "shared cores: the gateway and the load generator on the same CPUs"
fi

gateway_build
go build -o "$tmp/mix" ./bench/mix
go build -o "$tmp/vegeta" github.com/tsenart/vegeta/v12
# shellcheck disable=SC2086 # GATEWAY_ARGS is a list of flags
gateway_start --cpus "$srv" gateway ${GATEWAY_ARGS:--response-cache-bytes=0}
url="http://${gateway_addr[gateway]}/graphql"

for mix in $mixes; do
  for h in identity browser; do
    "$tmp/mix" -mix "$mix" -headers "$h" -format wrk -url "$url" > "$tmp/$mix.$h.lua"
    "$tmp/mix" -mix "$mix" -headers "$h" -format vegeta -url "$url" > "$tmp/$mix.$h.targets"
  done
  # The mix's first request must be answered, and for a browser
  # compressed when the answer is large enough to be.
  "$tmp/mix" -mix "$mix" -format body -url "$url" > "$tmp/$mix.json"
  curl -s "$url" -H 'Content-Type: application/json' --data-binary @"$tmp/$mix.json" > "$tmp/$mix.answer"
  grep -q '^{"data":' "$tmp/$mix.answer" || { echo "$mix failed: $(head -c 300 "$tmp/$mix.answer")" >&2; exit 1; }
  coding=$(curl -s -o /dev/null -D - "$url" -H 'Content-Type: application/json' -H 'Accept-Encoding: gzip, deflate, br, zstd' \
    --data-binary @"$tmp/$mix.json" | tr -d '\r' | sed -n 's/^[Cc]ontent-[Ee]ncoding: //p')
  echo "$mix: $(wc -c < "$tmp/$mix.answer") bytes, to a browser in ${coding:-identity}"
done

# closed MIX HEADERS: a second of warm-up, then $secs measured by wrk (one
# thread, $conns connections); "req/s p50 p99".
closed() {
  local script=$tmp/$1.$2.lua
  "${load[@]}" wrk -t1 -c"$conns" -d1s -s "$script" "$url" >/dev/null
  out=$("${load[@]}" wrk -t1 -c"$conns" -d"${secs}s" --latency -s "$script" "$url")
  if grep -q 'Non-2xx' <<<"$out"; then echo "non-2xx answers to $1 ($2)" >&2; exit 1; fi
  awk '/Requests\/sec/ {r=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {printf "%s %s %s\n", r, p50, p99}' <<<"$out"
}

echo
echo "closed loop: wrk, 1 thread x $conns connections, ${secs} s, $rounds rounds interleaved"
printf '%-9s %-9s %5s %10s %9s %9s %16s\n' mix headers round req/s p50 p99 browser/identity
# The machine's own speed drifts between rounds, so each mix's figure is
# also given over all its rounds: the mean of the browser's rounds over
# the mean of identity's.
declare -A isum=() bsum=()
for mix in $mixes; do
  isum[$mix]=0 bsum[$mix]=0
  for round in $(seq "$rounds"); do
    read -r ir ip50 ip99 <<<"$(closed "$mix" identity)"
    read -r br bp50 bp99 <<<"$(closed "$mix" browser)"
    printf '%-9s %-9s %5s %10s %9s %9s %16s\n' "$mix" identity "$round" "$ir" "$ip50" "$ip99" ""
    printf '%-9s %-9s %5s %10s %9s %9s %16.2f\n' "$mix" browser "$round" "$br" "$bp50" "$bp99" "$(echo "$br / $ir" | bc -l)"
    isum[$mix]=$(echo "${isum[$mix]} + $ir" | bc -l) bsum[$mix]=$(echo "${bsum[$mix]} + $br" | bc -l)
  done
done
echo
printf '%-9s %14s %14s %16s\n' mix "identity mean" "browser mean" browser/identity
for mix in $mixes; do
  printf '%-9s %14.0f %14.0f %16.2f\n' "$mix" "$(echo "${isum[$mix]} / $rounds" | bc -l)" \
    "$(echo "${bsum[$mix]} / $rounds" | bc -l)" "$(echo "${bsum[$mix]} / ${isum[$mix]}" | bc -l)"
done

[ -n "$rates" ] || exit 0
echo
echo "open loop: vegeta at fixed rates, ${secs} s each after 2 s of warm-up"
printf '%-9s %-9s %7s %9s %9s %9s %9s\n' mix headers rate held p50 p99 ok%
for mix in $mixes; do
  for rate in $rates; do
    for h in identity browser; do
      targets=$tmp/$mix.$h.targets
      "${load[@]}" "$tmp/vegeta" attack -format=json -targets="$targets" -rate="$rate" -duration=2s -max-workers=256 >/dev/null
      "${load[@]}" "$tmp/vegeta" attack -format=json -targets="$targets" -rate="$rate" -duration="${secs}s" \
        -max-workers=512 -timeout=5s > "$tmp/results.bin"
      "$tmp/vegeta" report -type=text < "$tmp/results.bin" > "$tmp/report.txt"
      # Requests [total, rate, throughput]; Latencies [min, mean, 50, 90, 95, 99, max]; Success [ratio]
      awk -v mix="$mix" -v h="$h" -v rate="$rate" '
        { gsub(",", "") }
        /^Requests/  { held = $(NF-1) }
        /^Latencies/ { p50 = $(NF-4); p99 = $(NF-1) }
        /^Success/   { ok = $NF }
        END { printf "%-9s %-9s %7s %9s %9s %9s %9s\n", mix, h, rate, held, p50, p99, ok }' "$tmp/report.txt"
    done
  done
done
