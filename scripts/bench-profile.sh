#!/usr/bin/env bash
# bench-profile.sh: the overhead of `tuneloop jvm PID --profile cpu` on a zoo
# service under load. One service stays up; windows of SECONDS with and
# without a CPU profile recording alternate for ROUNDS rounds (off-on, then
# on-off, ...: a drift such as late JIT compilation hits both sides alike),
# each loaded by `tuneloop load` with CONNECTIONS users. Prints every window's TPS and the
# median TPS loss with the profile on (the goal: under 3%).
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
# profiled r: a window with a CPU profile recording over all of it.
profiled() {
  "$bin" jvm "$pid" --profile cpu -d "$((secs + 4))s" --out "$dir/p$1" > "$dir/p$1.txt" 2>&1 &
  local prof=$!
  sleep 2 # JFR.start has answered; the recording runs past the window's end
  tps
  wait "$prof" || { echo "bench-profile: the profile failed:" >&2; cat "$dir/p$1.txt" >&2; exit 1; }
}

off=() on=()
printf '%-6s %12s %12s\n' round "off (TPS)" "cpu (TPS)"
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then a=$(tps); b=$(profiled "$r"); else b=$(profiled "$r"); a=$(tps); fi
  [ -n "$a" ] && [ -n "$b" ] || { echo "bench-profile: round $r: a window failed" >&2; exit 1; }
  off+=("$a") on+=("$b")
  printf '%-6s %12s %12s\n' "$r" "$a" "$b"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
mo=$(median "${off[@]}") mc=$(median "${on[@]}")
awk -v o="$mo" -v c="$mc" -v s="$scenario" 'BEGIN { printf "%s: median TPS off %.0f, with --profile cpu %.0f: loss %.1f%%\n", s, o, c, 100 * (o - c) / o }'
