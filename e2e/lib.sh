# Sourced by the e2e suites that need one gateway on the embedded
# catalogue: start_gateway NAME builds it, starts it on a free loopback
# port and waits until it is ready, leaving its address in $addr, its
# scratch folder in $tmp and its log in $tmp/gateway.log (gateway_log
# prints the end of it). The gateway is stopped, and $tmp removed, on exit.

tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

gateway_log() { echo "--- gateway log (last 20 lines)"; tail -n 20 "$tmp/gateway.log" || true; }

start_gateway() {
  local name=$1
  echo "$name: building the gateway"
  go build -o "$tmp/gateway" .

  # Port 0: the kernel picks a free port, the gateway logs the one it got.
  # The upstream variables are dropped so it serves the embedded catalogue.
  env -u CATALOGUE_BASE_URL -u CATALOGUE_WORLDBOSS_URL -u ADDR \
    "$tmp/gateway" -addr 127.0.0.1:0 2>"$tmp/gateway.log" &
  pid=$!

  addr=
  local ready=
  for _ in $(seq 100); do # 100 x 0.2 s = 20 s at most
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name: the gateway exited before it was ready"; gateway_log; exit 1
    fi
    if [ -z "$addr" ]; then
      addr=$(sed -n 's/.*"msg":"listening".*"addr":"\([^"]*\)".*/\1/p' "$tmp/gateway.log" | head -n 1)
    fi
    if [ -n "$addr" ] &&
      [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://$addr/readyz" || true)" = 200 ]; then
      ready=1; break
    fi
    sleep 0.2
  done
  if [ -z "$ready" ]; then
    echo "$name: the gateway was not ready within 20 s (addr: ${addr:-unknown})"; gateway_log; exit 1
  fi
  echo "$name: gateway ready on $addr"
}
