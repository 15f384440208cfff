#!/usr/bin/env bash
# bench-profile.sh: the overhead of `tuneloop jvm PID --profile cpu` on a zoo
# service under load. One service stays up; windows of SECONDS with and
# without a CPU profile recording alternate for ROUNDS rounds (off-on, then
# on-off, ...: a drift such as late JIT compilation hits both sides alike),
# each loaded by `tuneloop load` with CONNECTIONS users. Prints every window's TPS, each
# round's loss with the profile on, and the median loss over the rounds (paired: each
# round's two windows are adjacent, so a drift of the host hits both; the goal: under 3%).
#
#   scripts/bench-profile.sh [SCENARIO=healthy] [SECONDS=10] [ROUNDS=5] [CONNECTIONS=20]
#   WARMUP=30s: load before the first window (JIT compilation)
#
# Needs bin/tuneloop (make build) and zoo/target/zoo.jar (make zoo).
set -euo pipefail
scenario=${1:-healthy}
secs=${2:-10}
rounds=${3:-5}
conns=${4:-20}
bin=${TUNELOOP:-bin/tuneloop}
port=${ZOO_PORT:-28091}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" # bin/tuneloop is relative to the repository (make runs it from there)
[ -x "$bin" ] || { echo "$bin missing: run make build" >&2; exit 1; }
[ -f "$here/zoo/target/zoo.jar" ] || { echo "zoo/target/zoo.jar missing: run make zoo" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench-profile: jq not found (apt-get install -y jq)" >&2; exit 1; }

dir=$(mktemp -d)
pid=$(ZOO_PORT=$port ZOO_LOG_DIR=$dir "$here/zoo/run-scenario.sh" "$scenario")
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
url=http://127.0.0.1:$port/api

# Warm-up: JIT compiles the service, and JFR's first start (its module
# loading) is not counted against the measured windows.
"$bin" load "$url" -c "$conns" -d "${WARMUP:-30s}" -o json > /dev/null
"$bin" jvm "$pid" --profile cpu -d 2s --out "$dir/warm" > /dev/null

tps() { # window: load for secs, print TPS
  "$bin" load "$url" -c "$conns" -d "${secs}s" -o json | jq -r '.tps'
}
# profiled r: a window with a CPU profile recording over all of it. The
# window starts once JFR.check shows the recording running (JFR.start can take
# seconds on a loaded host); the recording lasts 4 s past the window's end. The
# TPS is printed only when the profile succeeded: a window measured without a
# recording must not count as a profiled one.
profiled() {
  "$bin" jvm "$pid" --profile cpu -d "$((secs + 4))s" --out "$dir/p$1" > "$dir/p$1.txt" 2>&1 &
  local prof=$! running=0 v
  for _ in $(seq 100); do
    if "$bin" jvm "$pid" --jcmd JFR.check 2>/dev/null | grep -q tuneloop-profile; then running=1; break; fi
    kill -0 "$prof" 2>/dev/null || break
    sleep 0.1
  done
  if [ "$running" = 0 ]; then
    wait "$prof" || true
    echo "bench-profile: round $1: the recording did not start:" >&2; cat "$dir/p$1.txt" >&2; return 1
  fi
  v=$(tps)
  wait "$prof" || { echo "bench-profile: round $1: the profile failed:" >&2; cat "$dir/p$1.txt" >&2; return 1; }
  echo "$v"
}

off=() on=() loss=()
printf '%-6s %12s %12s %8s\n' round "off (TPS)" "cpu (TPS)" loss
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then a=$(tps); b=$(profiled "$r"); else b=$(profiled "$r"); a=$(tps); fi
  [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" 'BEGIN { exit !(a > 0) }' || { echo "bench-profile: round $r: a window failed" >&2; exit 1; }
  l=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", 100 * (a - b) / a }')
  off+=("$a") on+=("$b") loss+=("$l")
  printf '%-6s %12.0f %12.0f %7s%%\n' "$r" "$a" "$b" "$l"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
mo=$(median "${off[@]}") mc=$(median "${on[@]}") ml=$(median "${loss[@]}")
awk -v o="$mo" -v c="$mc" -v l="$ml" -v s="$scenario" -v n="$rounds" 'BEGIN {
  printf "%s: median TPS off %.0f, with --profile cpu %.0f; median loss over %d paired rounds %.1f%% (goal: under 3%%)\n", s, o, c, n, l }'
