# The one way a script starts a gateway: sourced by the e2e suites and,
# through bench/lib.sh, by the benchmarks; run by e2e/gateway.mjs for the
# Node suites. Source it from the repository root (". e2e/gateway.sh").
#
# Every gateway starts on 127.0.0.1:0: the kernel picks a free port and
# the gateway logs the one it got in its JSON "listening" line, so no
# script holds a fixed port that a leftover process can take. Sourcing it
# makes $tmp, a scratch folder, and installs the script's traps: on exit
# (or INT or TERM) the commands given to at_exit run, newest first, then
# every gateway still running is stopped and $tmp removed. A script that
# sources it sets no EXIT trap of its own.
#
#   gateway_build                      go build the gateway into $tmp; sets $gateway_bin
#   gateway_start [OPTION...] NAME [FLAG...]
#                                      starts $gateway_bin with FLAGs and waits until
#                                      its /readyz answers 200; its address is then
#                                      ${gateway_addr[NAME]}, its pid ${gateway_pid[NAME]}
#                                      and its log $tmp/NAME.log
#       --bin PATH                     run PATH instead (another build, or bench/floor,
#                                      which logs and answers as the gateway does)
#       --cpus LIST                    pin it to those CPUs (taskset -c LIST; "" for all)
#       --log FILE                     log to FILE rather than $tmp/NAME.log
#       --wait SECONDS                 how long it may take to be ready (default 30)
#   gateway_stop NAME                  SIGTERM, then SIGKILL after 20 s; returns its status
#   gateway_log NAME                   prints the last 20 lines of its log
#   at_exit COMMAND                    runs COMMAND (a string, eval'd) on exit
#
# The upstream variables and ADDR are dropped from each gateway's
# environment, so it serves the embedded catalogue unless its flags say
# otherwise; the rest of the environment (GOGC, GOMEMLIMIT) passes through.
#
# Run rather than sourced, it serves one gateway for a program in another
# language (e2e/gateway.mjs):
#
#   bash e2e/gateway.sh LOG BIN [FLAG...]
#
# starts BIN as gateway_start does, logging to LOG, prints its address on
# a line of its own once it is ready, and runs until it gets TERM or INT
# or its standard input closes, then stops the gateway and exits with the
# gateway's status.

tmp=$(mktemp -d)
declare -A gateway_addr=() gateway_pid=() gateway_logs=()
gateway_bin=
_at_exit=()

at_exit() { _at_exit+=("$1"); }

_gateway_cleanup() {
  local i name
  for ((i = ${#_at_exit[@]} - 1; i >= 0; i--)); do eval "${_at_exit[i]}" || true; done
  # All told at once, so that they shut down together.
  for name in "${!gateway_pid[@]}"; do kill -TERM "${gateway_pid[$name]}" 2>/dev/null || true; done
  for name in "${!gateway_pid[@]}"; do gateway_stop "$name" || true; done
  rm -rf "$tmp"
}
trap _gateway_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

gateway_build() {
  go build -o "$tmp/gateway" . && gateway_bin=$tmp/gateway
}

gateway_log() {
  echo "--- $1's log (last 20 lines)"
  tail -n 20 "${gateway_logs[$1]:-$tmp/$1.log}" 2>/dev/null || true
}

# _listening FILE: the address of the first "listening" line in FILE.
_listening() { sed -n 's/.*"msg":"listening".*"addr":"\([^"]*\)".*/\1/p' "$1" | head -n 1 || true; }

gateway_start() {
  local bin=$gateway_bin cpus= log= wait=30
  while [ $# -gt 0 ]; do
    case $1 in
      --bin) bin=$2; shift 2 ;;
      --cpus) cpus=$2; shift 2 ;;
      --log) log=$2; shift 2 ;;
      --wait) wait=$2; shift 2 ;;
      *) break ;;
    esac
  done
  local name=$1; shift
  [ -n "$bin" ] || { echo "$name: no binary: call gateway_build first, or give --bin" >&2; return 1; }
  log=${log:-$tmp/$name.log}
  gateway_logs[$name]=$log
  local pin=()
  [ -n "$cpus" ] && pin=(taskset -c "$cpus")

  : >"$log" # there before the child opens it, for the first read below
  env -u CATALOGUE_BASE_URL -u CATALOGUE_WORLDBOSS_URL -u ADDR \
    "${pin[@]}" "$bin" -addr 127.0.0.1:0 "$@" 2>"$log" &
  gateway_pid[$name]=$!

  # Polled every 10 ms, so that a script timing the start-up (bench/
  # memory.sh, bench/startup.sh) is not rounded up by the wait; bounded by
  # the clock, not by a count, since each round's curl takes time too.
  local addr= end=$((SECONDS + wait))
  while [ "$SECONDS" -le "$end" ]; do
    if ! kill -0 "${gateway_pid[$name]}" 2>/dev/null; then
      echo "$name: exited before it was ready" >&2; gateway_log "$name" >&2
      unset "gateway_pid[$name]"; return 1
    fi
    [ -n "$addr" ] || addr=$(_listening "$log")
    if [ -n "$addr" ] &&
      [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://$addr/readyz" || true)" = 200 ]; then
      gateway_addr[$name]=$addr
      return 0
    fi
    sleep 0.01
  done
  echo "$name: not ready within $wait s (address: ${addr:-none logged})" >&2; gateway_log "$name" >&2
  gateway_stop "$name" || true
  return 1
}

gateway_stop() {
  local name=$1 pid=${gateway_pid[$1]:-} status=0
  [ -n "$pid" ] || return 0
  unset "gateway_pid[$name]" "gateway_addr[$name]"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done # 20 s at most
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || status=$?
  return "$status"
}

# Run, not sourced: serve one gateway for another program (above).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  [ $# -ge 2 ] || { echo "usage: bash e2e/gateway.sh LOG BIN [FLAG...]" >&2; exit 2; }
  log=$1 bin=$2; shift 2
  gateway_start --bin "$bin" --log "$log" gateway "$@" || exit 1
  echo "${gateway_addr[gateway]}"
  # Standard input closing means the program that started us is gone.
  exec 3<&0
  cat <&3 >/dev/null &
  stdin=$!
  stopping() { trap - INT TERM; kill "$stdin" 2>/dev/null; gateway_stop gateway; exit $?; }
  trap stopping INT TERM
  wait -n -p ended "${gateway_pid[gateway]}" "$stdin"
  status=$?
  if [ "${ended:-}" = "${gateway_pid[gateway]}" ]; then # it exited by itself
    unset "gateway_pid[gateway]"; kill "$stdin" 2>/dev/null; exit "$status"
  fi
  stopping
fi
