#!/usr/bin/env bash
# Start-up time and resident memory by catalogue size: the embedded
# catalogue, then the generator's catalogues served by nginx on loopback.
#
#   bench/memory.sh [runs]          (needs nginx: apt-get install nginx-light)
#   MEMORY_100X=1 bench/memory.sh   also the 100x catalogue (168 MB; slow)
#
# Prints, per catalogue and run, the time from exec to /readyz 200, the
# resident memory (VmRSS) once ready and the start-up's garbage returned,
# and its ratio to the raw JSON. Extra
# gateway flags can be passed in GATEWAY_FLAGS; the environment (GOGC,
# GOMEMLIMIT) is passed through.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
. bench/lib.sh
gateway_build

scales=(10)
[ -n "${MEMORY_100X:-}" ] && scales+=(100)
for s in "${scales[@]}"; do go run ./catalogue/gen -out "$tmp/x$s" -scale "$s"; done

start_nginx "$tmp" 1 "root $tmp; location / { try_files \$uri.json =404; }"

# measure NAME JSON_BYTES FLAGS...: one start of the gateway, one line.
measure() {
  local name=$1 raw=$2; shift 2
  local t0 t1 pid
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  gateway_start --wait 120 --log "$tmp/log" "$name" -access-log=false ${GATEWAY_FLAGS:-} "$@" || exit 1
  t1=$(date +%s%N)
  pid=${gateway_pid[$name]}
  # Once ready, the gateway returns the start-up's garbage to the system
  # and logs it: that, not the moment of readiness, is the resident
  # memory it keeps.
  for _ in $(seq 1200); do # at most 2 minutes
    grep -q 'start-up garbage returned' "$tmp/log" && break
    sleep 0.1
  done
  awk -v name="$name" -v ms=$(( (t1 - t0) / 1000000 )) -v raw="$raw" '
    /VmRSS/ { rss = $2 * 1024 }
    END { printf "%-10s %10.1f %10d %10.0f %8.1fx\n", name, raw / 1048576, ms, rss / 1048576, rss / raw }' /proc/$pid/status
  gateway_stop "$name" || true
}

size() { cat "$1"/*.json | wc -c; }
printf '%-10s %10s %10s %10s %9s\n' catalogue "JSON (MiB)" "ready (ms)" "RSS (MiB)" "RSS/JSON"
for _ in $(seq "$runs"); do measure embedded "$(size catalogue/embedded)"; done
for s in "${scales[@]}"; do
  flags=(-base-url "http://127.0.0.1:$nginx_port/x$s")
  [ "$s" -ge 100 ] && flags+=(-max-upstream-bytes 256MiB -upstream-timeout 2m)
  for _ in $(seq "$runs"); do measure "${s}x" "$(size "$tmp/x$s")" "${flags[@]}"; done
done
