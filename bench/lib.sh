# Shared by the bench scripts: source it (". bench/lib.sh") from the
# repository root. It sources e2e/gateway.sh, the one starter of every
# script's gateways (gateway_build, gateway_start, gateway_stop, at_exit,
# $tmp; its comment says how), so a bench script sets no EXIT trap of its
# own: it gives at_exit what else must stop.
. e2e/gateway.sh

# post_script QUERY JSON LUA: writes the GraphQL request body for QUERY
# (already escaped for a JSON string) to JSON, and a wrk script POSTing it
# to LUA.
post_script() {
  printf '{"query":"%s"}' "$1" > "$2"
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [==[%s]==]\n' "$(cat "$2")" > "$3"
}

# start_nginx DIR WORKERS SERVER: writes DIR/nginx.conf for an nginx with
# WORKERS worker processes listening on a free loopback port, left in
# $nginx_port, whose one server block holds the directives SERVER, and
# starts it (logs and pid in DIR), to be stopped on exit. Static files go
# out with sendfile, as nginx serves them in production.
#
# nginx cannot listen on port 0 and say which port it got, so a port is
# drawn below the kernel's ephemeral range (where no client connection
# will take it meanwhile) and nginx's own bind is the test: a port in
# use makes it fail at once, and another is drawn, ten times at most.
start_nginx() {
  local dir=$1 workers=$2 server=$3 user=
  [ "$(id -u)" -eq 0 ] && user="user root;" # else the workers drop root
  chmod 755 "$dir"
  mkdir -p "$dir/logs"
  at_exit "stop_nginx '$dir'"
  for _ in $(seq 10); do
    nginx_port=$((20000 + RANDOM % 12000))
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
    listen 127.0.0.1:$nginx_port;
    $server
  }
}
CONF
    nginx -p "$dir" -c "$dir/nginx.conf" 2>"$dir/logs/start.log" && return 0
    grep -q 'Address already in use' "$dir/logs/start.log" || { cat "$dir/logs/start.log" >&2; return 1; }
  done
  echo "nginx: no free port in ten draws" >&2
  return 1
}

stop_nginx() {
  [ -f "$1/nginx.conf" ] && nginx -p "$1" -c "$1/nginx.conf" -s stop 2>/dev/null || true
}
