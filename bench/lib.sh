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

# start_nginx DIR PORT WORKERS SERVER: writes DIR/nginx.conf for an nginx
# with WORKERS worker processes listening on 127.0.0.1:PORT, whose one
# server block holds the directives SERVER, and starts it (logs and pid in
# DIR). Static files go out with sendfile, as nginx serves them in
# production. stop_nginx DIR stops it; a script's EXIT trap should.
start_nginx() {
  local dir=$1 port=$2 workers=$3 server=$4 user=
  [ "$(id -u)" -eq 0 ] && user="user root;" # else the workers drop root
  chmod 755 "$dir"
  mkdir -p "$dir/logs"
  cat > "$dir/nginx.conf" <<CONF
$user
worker_processes $workers;
error_log $dir/logs/error.log;
pid $dir/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  default_type application/json;
  server {
    listen 127.0.0.1:$port;
    $server
  }
}
CONF
  nginx -p "$dir" -c "$dir/nginx.conf"
}

stop_nginx() {
  [ -f "$1/nginx.conf" ] && nginx -p "$1" -c "$1/nginx.conf" -s stop 2>/dev/null || true
}
