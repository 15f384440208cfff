#!/usr/bin/env bash
# bench-load.sh: tuneloop's load generator against wrk, same target, same
# connections, same duration, as a matrix: connections {10, 50, 200, 1000} x
# response size {100 B, 10 KiB, 1 MiB} x {keep-alive, Connection: close}.
# nginx serves static files on 127.0.0.1 pinned to CPU 0; the generators run
# in turn pinned to CPU 1 (one thread each), alternating round by round so
# that the noise of a shared machine hits both alike.
#
# The figure is requests per generator CPU-second: user+sys of the generator
# process (the rusage its parent reaps, the utime+stime of /proc/PID/stat at
# its exit). Each cell prints the median of its rounds for both and their
# ratio; every round is printed too. The limit column says who held the
# throughput: "generator" when both generators kept their core busy (>= 90%),
# so the ratio is a verdict; otherwise "server-bound" (nginx near its core,
# or a generator well below its own) or, when neither side came near its
# core (a busy shared machine), "not generator-bound": the ratio is then
# only indicative. The load average is printed before and after.
# Instructions per request come from perf where the machine has hardware
# counters; without them the column says "n/a (no PMU)".
#
#   scripts/bench-load.sh                      # the full matrix, < 10 min
#   QUICK=1 scripts/bench-load.sh              # 5 cells, < 2 min
#   ROUNDS=5 SECS=5 CONNS="50" scripts/bench-load.sh
#   scripts/bench-load.sh 50 5 7               # old form: CONNS SECS ROUNDS
#
# Environment: ROUNDS (default 3), SECS (seconds per run, default 3), QUICK=1,
# CONNS, SIZES (100 10k 1m), MODES (ka close), TUNELOOP (the binary).
# Installs nginx and wrk when missing (as root).
set -euo pipefail
[ $# -ge 1 ] && CONNS=$1
[ $# -ge 2 ] && SECS=$2
[ $# -ge 3 ] && ROUNDS=$3
rounds=${ROUNDS:-3}
secs=${SECS:-3}
bin=${TUNELOOP:-bin/tuneloop}
port=18089

need() { command -v "$1" >/dev/null 2>&1 || NEED+=" $2"; }
NEED=""
need nginx nginx-light
need wrk wrk
need taskset util-linux
need pgrep procps
if [ -n "$NEED" ]; then
  echo "installing:$NEED"
  if [ "$(id -u)" != 0 ]; then echo "need root to install$NEED" >&2; exit 1; fi
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $NEED >/dev/null
fi
[ -x "$bin" ] || { echo "$bin missing: run make build" >&2; exit 1; }
ncpu=$(nproc)
srv_cpu=0; gen_cpu=$(( ncpu > 1 ? 1 : 0 ))
# 1,000 connections and their TIME_WAIT neighbours need descriptors.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# The cells: "connections size mode".
cells=()
if [ "${QUICK:-0}" = 1 ] && [ -z "${CONNS:-}" ]; then
  cells=("50 100 ka" "1000 100 ka" "50 10k ka" "50 1m ka" "50 100 close")
else
  for c in ${CONNS:-10 50 200 1000}; do
    for s in ${SIZES:-100 10k 1m}; do
      for m in ${MODES:-ka close}; do cells+=("$c $s $m"); done
    done
  done
fi

dir=$(mktemp -d)
trap 'kill "$(cat "$dir/nginx.pid" 2>/dev/null)" 2>/dev/null || true; sleep 0.2; rm -rf "$dir"' EXIT
chmod 755 "$dir" # nginx's workers may run as nobody
mkdir "$dir/www"
head -c 100 /dev/zero | tr '\0' x > "$dir/www/100"
head -c 10240 /dev/zero | tr '\0' x > "$dir/www/10k"
head -c 1048576 /dev/zero | tr '\0' x > "$dir/www/1m"
chmod 755 "$dir/www"; chmod 644 "$dir/www"/*
cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
worker_rlimit_nofile 65536;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir; uwsgi_temp_path $dir; scgi_temp_path $dir;
  keepalive_requests 100000000;
  sendfile on;
  open_file_cache max=16 inactive=600s;
  server { listen 127.0.0.1:$port backlog=4096; root $dir/www; }
}
CONF
taskset -c $srv_cpu nginx -c "$dir/nginx.conf" -p "$dir"
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
worker=$(pgrep -P "$(cat "$dir/nginx.pid")" | head -1)
[ -n "$worker" ] || { echo "nginx worker not found" >&2; exit 1; }

# Instructions retired do not swing with the neighbours of a shared VM as
# CPU seconds do; a VM without hardware counters reports "<not supported>".
perf_ok=0
if command -v perf >/dev/null 2>&1 && perf stat -x, -e instructions -o "$dir/perf" true >/dev/null 2>&1 &&
  awk -F, '$3 ~ /^instructions/ && $1 ~ /^[0-9]+$/ {ok=1} END {exit !ok}' "$dir/perf"; then
  perf_ok=1
fi

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime+stime, in clock ticks
hz=$(getconf CLK_TCK)

# run_gen CMD...: runs CMD pinned to the generator CPU. Leaves its output in
# $dir/out and sets cpu (its user+sys seconds), wall (seconds), insn
# (instructions, 0 without perf) and srv (nginx's CPU seconds meanwhile).
run_gen() {
  local TIMEFORMAT='%R %U %S' t0
  t0=$(ticks "$worker")
  if [ $perf_ok = 1 ]; then
    { time taskset -c $gen_cpu perf stat -x, -e instructions -o "$dir/perf" "$@" > "$dir/out" 2>&1 ; } 2> "$dir/times"
    insn=$(awk -F, '$3 ~ /^instructions/ {print $1}' "$dir/perf")
  else
    { time taskset -c $gen_cpu "$@" > "$dir/out" 2>&1 ; } 2> "$dir/times"
    insn=0
  fi
  srv=$(awk -v a="$t0" -v b="$(ticks "$worker")" -v hz="$hz" 'BEGIN { print (b - a) / hz }')
  read -r wall u s < "$dir/times"
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
}

median() { printf "%s\n" "$@" | sort -g | awk '{a[NR]=$1} END { m = 0; if (NR % 2) m = a[(NR+1)/2]; else if (NR) m = (a[NR/2] + a[NR/2+1]) / 2; print m }'; }
pct() { awk -v c="$1" -v w="$2" 'BEGIN { printf "%.0f", (w > 0) ? 100 * c / w : 0 }'; }

printf "closed model, %d s x %d rounds per cell, nginx on CPU %s, generators on CPU %s (one thread each), %d cells\n" \
  "$secs" "$rounds" "$srv_cpu" "$gen_cpu" "${#cells[@]}"
[ $perf_ok = 1 ] || echo "instructions per request: n/a (no PMU: this machine exposes no hardware counters)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rounds: requests per generator CPU-second (req/CPU-s), generator and nginx CPU in % of a core, errors"
summary=()
for cell in "${cells[@]}"; do
  read -r conns size mode <<< "$cell"
  url=http://127.0.0.1:$port/$size
  wrk_extra=(); tl_extra=()
  if [ "$mode" = close ]; then wrk_extra=(-H "Connection: close"); tl_extra=(--no-keepalive); fi
  echo "== $conns connections, $size, $([ "$mode" = ka ] && echo keep-alive || echo Connection: close)"
  printf "   %-5s %11s %9s %6s %6s %6s   %11s %9s %6s %6s %6s   %6s\n" round "wrk req/s" "req/CPU-s" "cpu%" "nginx%" errs "ours req/s" "req/CPU-s" "cpu%" "nginx%" errs ratio
  W=(); T=(); R=(); WC=(); TC=(); NG=(); WI=(); TI=()
  for r in $(seq "$rounds"); do
    run_gen wrk -t1 -c"$conns" -d"${secs}s" "${wrk_extra[@]}" "$url"
    wreq=$(awk '/requests in/ {print $1}' "$dir/out"); wreq=${wreq:-0}
    werr=$(awk '/Socket errors/ {gsub(",", ""); e += $4 + $6 + $8 + $10} /Non-2xx/ {e += $NF} END {print e + 0}' "$dir/out")
    wcpu=$cpu wwall=$wall wsrv=$srv winsn=$insn
    run_gen "$bin" load "$url" -c "$conns" -d "${secs}s" -o json -q "${tl_extra[@]}"
    treq=$(grep -m1 '"requests"' "$dir/out" | tr -dc '0-9'); treq=${treq:-0}
    terr=$(grep -m1 '"errors"' "$dir/out" | tr -dc '0-9'); terr=${terr:-0}
    tcpu=$cpu twall=$wall tsrv=$srv tinsn=$insn
    wr=$(awk -v n="$wreq" -v c="$wcpu" 'BEGIN { printf "%.0f", (c > 0) ? n / c : 0 }')
    tr=$(awk -v n="$treq" -v c="$tcpu" 'BEGIN { printf "%.0f", (c > 0) ? n / c : 0 }')
    ratio=$(awk -v a="$tr" -v b="$wr" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
    W+=("$wr"); T+=("$tr"); R+=("$ratio")
    WC+=("$(pct "$wcpu" "$wwall")"); TC+=("$(pct "$tcpu" "$twall")")
    NG+=("$(pct "$wsrv" "$wwall")" "$(pct "$tsrv" "$twall")")
    WI+=("$(awk -v i="$winsn" -v n="$wreq" 'BEGIN { printf "%.0f", (n > 0) ? i / n : 0 }')")
    TI+=("$(awk -v i="$tinsn" -v n="$treq" 'BEGIN { printf "%.0f", (n > 0) ? i / n : 0 }')")
    printf "   %-5d %11.0f %9d %6s %6s %6d   %11.0f %9d %6s %6s %6d   %6s\n" "$r" \
      "$(awk -v n="$wreq" -v s="$secs" 'BEGIN { print n / s }')" "$wr" "${WC[-1]}" "$(pct "$wsrv" "$wwall")" "$werr" \
      "$(awk -v n="$treq" -v s="$secs" 'BEGIN { print n / s }')" "$tr" "${TC[-1]}" "$(pct "$tsrv" "$twall")" "$terr" "$ratio"
  done
  mw=$(median "${W[@]}"); mt=$(median "${T[@]}"); mr=$(median "${R[@]}")
  mwc=$(median "${WC[@]}"); mtc=$(median "${TC[@]}"); mng=$(median "${NG[@]}")
  # A generator below 90% of its core waited: for the server (nginx near
  # its core) or for a CPU its neighbours held. Its CPU per request then
  # includes idle wake-ups, and the ratio is no verdict.
  mwc=${mwc%.*} mtc=${mtc%.*} mng=${mng%.*}
  if [ "$mwc" -ge 90 ] && [ "$mtc" -ge 90 ]; then
    limit=generator
    verdict=$(awk -v r="$mr" 'BEGIN { print (r >= 1) ? "at/above wrk" : "BELOW wrk" }')
  elif [ "$mng" -ge 90 ]; then
    limit="server-bound (nginx ${mng}%)"; verdict="no verdict"
  elif [ "$mng" -ge 50 ]; then
    limit="server-bound (gens ${mwc}%/${mtc}%, nginx ${mng}%)"; verdict="no verdict"
  else
    # Neither side near its core: both waited, on the loopback round trip
    # or on CPUs the machine's other work held.
    limit="not generator-bound (gens ${mwc}%/${mtc}%, nginx ${mng}%: shared CPUs?)"; verdict="no verdict"
  fi
  if [ $perf_ok = 1 ]; then
    insn="$(median "${WI[@]}")/$(median "${TI[@]}")"
  else
    insn="n/a (no PMU)"
  fi
  printf "   median ratio (ours/wrk) %s, rounds %s\n" "$mr" "${R[*]}"
  summary+=("$(printf "%-6s %-5s %-6s %10.0f %10.0f %6s %-13s %5s %5s %6s  %-16s %s" "$conns" "$size" "$mode" "$mw" "$mt" "$mr" "$verdict" "$mwc" "$mtc" "$mng" "$insn" "$limit")")
done

echo
echo "matrix: medians of $rounds interleaved rounds of ${secs} s; req/CPU-s = requests per generator CPU-second; ratio = median of the rounds' ours/wrk"
printf "%-6s %-5s %-6s %10s %10s %6s %-13s %5s %5s %6s  %-16s %s\n" conns size mode "wrk" "ours" ratio verdict "wrk%" "our%" "nginx%" "insn/r wrk/ours" limit
printf "%s\n" "${summary[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
