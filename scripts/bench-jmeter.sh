#!/usr/bin/env bash
# bench-jmeter.sh: what one request costs each engine of `tuneloop load
# --jmx`, the built-in generator and JMeter 5.6.3 (scripts/jmeter-fetch.sh),
# sending the same plan (scripts/bench-jmeter/plan.jmx: USERS threads, one
# keep-alive GET of 100 bytes) to the same nginx on 127.0.0.1, in turn,
# round by round (builtin, JMeter, builtin, JMeter ...), so that the noise of
# a shared machine hits both alike. nginx runs on CPU 0, the engines on
# CPU 1.
#
# The figure is CPU time per request over the measured window (after
# --warm-up): the engine's CPU there (tuneloop's process for builtin; the
# JMeter JVM's, read from /proc by tuneloop) divided by the requests it
# completed. What the command cost outside the window is printed apart:
# the CPU of the whole command (bash time: tuneloop and JMeter, start to
# exit: JMeter's JVM start, the warm-up, the stop) less the window's.
# Every round is printed, then the medians and their ratio.
#
#   scripts/bench-jmeter.sh                  # 3 rounds of 8 s after 8 s of warm-up, 20 users
#   ROUNDS=5 SECS=10 USERS=50 scripts/bench-jmeter.sh
#
# Installs nginx when missing (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
secs=${SECS:-8}
users=${USERS:-20}
warm=${WARM:-8}
bin=${TUNELOOP:-bin/tuneloop}
port=18090
. scripts/jmeter-fetch.sh

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  [ "$(id -u)" = 0 ] || { echo "need nginx (or root to install nginx-light)" >&2; exit 1; }
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
fi
export PATH="$PATH:/usr/sbin"
[ -x "$bin" ] || { echo "$bin missing: run make build" >&2; exit 1; }
ncpu=$(nproc)
srv_cpu=0; gen_cpu=$(( ncpu > 1 ? 1 : 0 ))

dir=$(mktemp -d)
trap 'kill "$(cat "$dir/nginx.pid" 2>/dev/null)" 2>/dev/null || true; sleep 0.2; rm -rf "$dir"' EXIT
chmod 755 "$dir"; mkdir "$dir/www"
head -c 100 /dev/zero | tr '\0' x > "$dir/www/100"
chmod 755 "$dir/www"; chmod 644 "$dir/www"/*
cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir; uwsgi_temp_path $dir; scgi_temp_path $dir;
  keepalive_requests 100000000;
  server { listen 127.0.0.1:$port backlog=4096; root $dir/www; }
}
CONF
taskset -c $srv_cpu nginx -c "$dir/nginx.conf" -p "$dir"
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done

# one ENGINE: runs the plan with ENGINE pinned to the generator CPU; sets
# req (requests), tps, win (CPU seconds in the window), total (CPU seconds
# of the command, start to exit) and errs.
one() {
  local TIMEFORMAT='%U %S' u s
  { time taskset -c $gen_cpu "$bin" load --jmx scripts/bench-jmeter/plan.jmx --engine "$1" -J port=$port -J users=$users \
      -d "${secs}s" --warm-up "${warm}s" -o json -q > "$dir/out.json" 2> "$dir/err" ; } 2> "$dir/times" || { cat "$dir/err" >&2; exit 1; }
  read -r u s < "$dir/times"
  total=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
  read -r req tps win errs < <(python3 - "$dir/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if d.get("engine") == "jmeter":
    e = d["engines"][0]
    cpu = e["cpu_pct"] / 100 * e["cores"] * d["duration_s"]
else:
    cpu = d.get("client_cpu_pct", 0) / 100 * 1 * d["duration_s"]  # GOMAXPROCS 1 under taskset
print(d["requests"], d["tps"], round(cpu, 3), d["errors"])
PY
)
}

median() { printf "%s\n" "$@" | sort -g | awk '{a[NR]=$1} END { m = 0; if (NR % 2) m = a[(NR+1)/2]; else if (NR) m = (a[NR/2] + a[NR/2+1]) / 2; print m }'; }
us() { awk -v c="$1" -v n="$2" 'BEGIN { printf "%.1f", (n > 0) ? 1e6 * c / n : 0 }'; }

echo "bench-jmeter: $users users, keep-alive GET 100 B, ${warm} s warm-up + ${secs} s measured, $rounds rounds; nginx on CPU $srv_cpu, engine on CPU $gen_cpu"
echo "JMeter $JMETER_HOME ($(java -version 2>&1 | head -1)), JVM_ARGS='${JVM_ARGS:-}'"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-6s %-8s %9s %9s %10s %13s %14s %5s\n" round engine requests req/s "CPU s" "CPU us/req" "outside CPU s" errs
B=(); J=(); BT=(); JT=()
for r in $(seq "$rounds"); do
  for eng in builtin jmeter; do
    one $eng
    per=$(us "$win" "$req")
    extra=$(awk -v t="$total" -v w="$win" 'BEGIN { printf "%.2f", t - w }')
    printf "%-6s %-8s %9s %9s %10s %13s %14s %5s\n" "$r" "$eng" "$req" "$tps" "$win" "$per" "$extra" "$errs"
    if [ $eng = builtin ]; then B+=("$per"); BT+=("$tps"); else J+=("$per"); JT+=("$tps"); fi
  done
done
mb=$(median "${B[@]}"); mj=$(median "${J[@]}")
printf "median CPU per request: builtin %s us, JMeter %s us: JMeter costs %sx the built-in generator per request (req/s medians %s vs %s)\n" \
  "$mb" "$mj" "$(awk -v a="$mj" -v b="$mb" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }')" "$(median "${BT[@]}")" "$(median "${JT[@]}")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
