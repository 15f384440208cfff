#!/usr/bin/env bash
# bench-load.sh: tuneloop's load generator against wrk, same target, same
# connections, same duration. nginx serves a fixed 200 on 127.0.0.1, pinned
# to CPU 0; each generator runs in turn pinned to CPU 1. Prints requests/s
# and requests per generator CPU-second (user+sys from the shell's rusage)
# for both, and the ratio. Installs nginx and wrk from Debian when missing.
#
#   scripts/bench-load.sh [CONNECTIONS=50] [SECONDS=10]
set -euo pipefail
conns=${1:-50}
secs=${2:-10}
bin=${TUNELOOP:-bin/tuneloop}
port=18089

need() { command -v "$1" >/dev/null 2>&1 || NEED+=" $2"; }
NEED=""
need nginx nginx-light
need wrk wrk
need taskset util-linux
if [ -n "$NEED" ]; then
  echo "installing:$NEED"
  if [ "$(id -u)" != 0 ]; then echo "need root to install$NEED" >&2; exit 1; fi
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $NEED >/dev/null
fi
[ -x "$bin" ] || { echo "$bin missing: run make build" >&2; exit 1; }
ncpu=$(nproc)
srv_cpu=0; gen_cpu=$(( ncpu > 1 ? 1 : 0 ))

dir=$(mktemp -d)
trap 'kill "$(cat "$dir/nginx.pid" 2>/dev/null)" 2>/dev/null || true; sleep 0.2; rm -rf "$dir"' EXIT
cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir; uwsgi_temp_path $dir; scgi_temp_path $dir;
  keepalive_requests 100000000;
  server { listen 127.0.0.1:$port; location / { return 200 "ok\n"; } }
}
CONF
taskset -c $srv_cpu nginx -c "$dir/nginx.conf" -p "$dir"
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
url=http://127.0.0.1:$port/

# cpu_of CMD...: runs CMD, leaves its output in $dir/out and its user+sys seconds in $dir/cpu.
cpu_of() {
  local TIMEFORMAT='%U %S'
  { time "$@" > "$dir/out" 2>&1 ; } 2> "$dir/times"
  awk '{print $1 + $2}' "$dir/times" > "$dir/cpu"
}

cpu_of taskset -c $gen_cpu wrk -t1 -c"$conns" -d"${secs}s" "$url"
wrk_req=$(awk '/requests in/ {print $1}' "$dir/out")
wrk_cpu=$(cat "$dir/cpu")

cpu_of taskset -c $gen_cpu "$bin" load "$url" -c "$conns" -d "${secs}s" -o json -q
tl_req=$(grep -m1 '"requests"' "$dir/out" | tr -dc '0-9')
tl_cpu=$(cat "$dir/cpu")

awk -v wr="$wrk_req" -v wc="$wrk_cpu" -v tr="$tl_req" -v tc="$tl_cpu" -v s="$secs" -v c="$conns" 'BEGIN {
  printf "closed model, %d connections, %d s, nginx on CPU %s, generator on CPU %s\n", c, s, "'$srv_cpu'", "'$gen_cpu'"
  printf "%-10s %12s %10s %12s %16s\n", "generator", "requests", "req/s", "CPU s", "req/CPU-s"
  printf "%-10s %12d %10.0f %12.2f %16.0f\n", "wrk", wr, wr/s, wc, (wc>0? wr/wc : 0)
  printf "%-10s %12d %10.0f %12.2f %16.0f\n", "tuneloop", tr, tr/s, tc, (tc>0? tr/tc : 0)
  if (wc > 0 && tc > 0 && wr > 0) printf "ratio tuneloop/wrk: %.2f req/s, %.2f req per CPU-second\n", tr/wr, (tr/tc)/(wr/wc)
}'
