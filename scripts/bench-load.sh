#!/usr/bin/env bash
# bench-load.sh: tuneloop's load generator against wrk, same target, same
# connections, same duration. nginx serves a fixed 200 on 127.0.0.1, pinned
# to CPU 0; the generators run in turn pinned to CPU 1, alternating for
# ROUNDS rounds so that machine noise hits both alike. Prints requests/s and
# requests per generator CPU-second (user+sys from the shell's rusage) of
# every round, and the median ratio. Installs nginx and wrk when missing.
#
#   scripts/bench-load.sh [CONNECTIONS=50] [SECONDS=5] [ROUNDS=5]
set -euo pipefail
conns=${1:-50}
secs=${2:-5}
rounds=${3:-5}
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

# CPU seconds swing with the neighbours of a shared VM; instructions retired
# do not. With a working perf, each run also counts its instructions (user
# and kernel: on loopback most of a generator's work is the TCP stack).
perf_ok=0
if command -v perf >/dev/null 2>&1 && perf stat -x, -e instructions -o /dev/null true >/dev/null 2>&1; then perf_ok=1; fi

# cpu_of CMD...: runs CMD, leaves its output in $dir/out, its user+sys seconds
# in $dir/cpu and, with perf, its instructions in $dir/insn.
cpu_of() {
  local TIMEFORMAT='%U %S'
  if [ $perf_ok = 1 ]; then
    { time perf stat -x, -e instructions -o "$dir/perf" "$@" > "$dir/out" 2>&1 ; } 2> "$dir/times"
    awk -F, '$3 ~ /^instructions/ {print $1}' "$dir/perf" > "$dir/insn"
  else
    { time "$@" > "$dir/out" 2>&1 ; } 2> "$dir/times"
    echo 0 > "$dir/insn"
  fi
  awk '{print $1 + $2}' "$dir/times" > "$dir/cpu"
}

printf "closed model, %d connections, %d s x %d rounds, nginx on CPU %s, generators on CPU %s\n" "$conns" "$secs" "$rounds" "$srv_cpu" "$gen_cpu"
printf "%-6s %12s %12s %14s %14s %8s %10s %10s\n" round "wrk req/s" "ours req/s" "wrk req/CPU-s" "ours req/CPU-s" ratio "wrk insn/r" "ours insn/r"
ratios=(); iratios=()
for r in $(seq "$rounds"); do
  cpu_of taskset -c $gen_cpu wrk -t1 -c"$conns" -d"${secs}s" "$url"
  wrk_req=$(awk '/requests in/ {print $1}' "$dir/out"); wrk_cpu=$(cat "$dir/cpu"); wrk_insn=$(cat "$dir/insn")
  cpu_of taskset -c $gen_cpu "$bin" load "$url" -c "$conns" -d "${secs}s" -o json -q
  tl_req=$(grep -m1 '"requests"' "$dir/out" | tr -dc '0-9'); tl_cpu=$(cat "$dir/cpu"); tl_insn=$(cat "$dir/insn")
  ratio=$(awk -v wr="$wrk_req" -v wc="$wrk_cpu" -v tr="$tl_req" -v tc="$tl_cpu" 'BEGIN { printf "%.2f", (tr/tc)/(wr/wc) }')
  ratios+=("$ratio")
  # wrk's instructions per request over ours: above 1 means we do less work per request.
  iratios+=("$(awk -v wr="$wrk_req" -v wi="$wrk_insn" -v tr="$tl_req" -v ti="$tl_insn" 'BEGIN { printf "%.2f", (ti > 0 && wi > 0) ? (wi/wr)/(ti/tr) : 0 }')")
  awk -v r="$r" -v wr="$wrk_req" -v wc="$wrk_cpu" -v tr="$tl_req" -v tc="$tl_cpu" -v s="$secs" -v q="$ratio" -v wi="$wrk_insn" -v ti="$tl_insn" \
    'BEGIN { printf "%-6d %12.0f %12.0f %14.0f %14.0f %8s %10.0f %10.0f\n", r, wr/s, tr/s, wr/wc, tr/tc, q, wi/wr, ti/tr }'
done
median() { printf "%s\n" "$@" | sort -n | awk '{a[NR]=$1} END { print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2 }'; }
echo "median ratio tuneloop/wrk, requests per generator CPU-second: $(median "${ratios[@]}")"
if [ $perf_ok = 1 ]; then
  echo "median ratio wrk/tuneloop, instructions per request (less work per request above 1): $(median "${iratios[@]}")"
fi
