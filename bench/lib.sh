# Shared by the bench scripts: source it (". bench/lib.sh") from the
# repository root.

# wait_ready PORT...: waits, at most 10 s each, until the gateway on each
# loopback port answers /readyz with 200.
wait_ready() {
  local port
  for port in "$@"; do
    for _ in $(seq 1 200); do curl -sf -o /dev/null "127.0.0.1:$port/readyz" && break; sleep 0.05; done
  done
}

# post_script QUERY JSON LUA: writes the GraphQL request body for QUERY
# (already escaped for a JSON string) to JSON, and a wrk script POSTing it
# to LUA.
post_script() {
  printf '{"query":"%s"}' "$1" > "$2"
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [==[%s]==]\n' "$(cat "$2")" > "$3"
}
