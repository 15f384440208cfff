#!/usr/bin/env bash
# bench-profile.sh: the overhead of `tuneloop jvm PID --profile cpu` on a zoo
# service under load. One service stays up; windows of SECONDS with and
# without a CPU profile recording alternate (off, on, off, on, ...) for
# ROUNDS rounds, each loaded by `tuneloop load` with CONNECTIONS users, so
# machine noise hits both sides alike. Prints every window's TPS and the
# median TPS loss with the profile on (the goal: under 3%).
#
#   scripts/bench-profile.sh [SCENARIO=healthy] [SECONDS=10] [ROUNDS=5] [CONNECTIONS=20]
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
"$bin" load "$url" -c "$conns" -d 10s -o json > /dev/null
"$bin" jvm "$pid" --profile cpu -d 2s --out "$dir/warm" > /dev/null

tps() { # window: load for secs, print TPS
  "$bin" load "$url" -c "$conns" -d "${secs}s" -o json | jq -r '.summary.tps // .tps'
}

off=() on=()
printf '%-6s %12s %12s\n' round "off (TPS)" "cpu (TPS)"
for r in $(seq "$rounds"); do
  a=$(tps)
  # The recording spans the whole window (started a moment before the load).
  "$bin" jvm "$pid" --profile cpu -d "$((secs + 2))s" --out "$dir/p$r" > "$dir/p$r.txt" 2>&1 &
  prof=$!
  sleep 1
  b=$(tps)
  wait "$prof" || { echo "bench-profile: the profile failed:" >&2; cat "$dir/p$r.txt" >&2; exit 1; }
  off+=("$a") on+=("$b")
  printf '%-6s %12s %12s\n' "$r" "$a" "$b"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
mo=$(median "${off[@]}") mc=$(median "${on[@]}")
awk -v o="$mo" -v c="$mc" -v s="$scenario" 'BEGIN { printf "%s: median TPS off %.0f, with --profile cpu %.0f: loss %.1f%%\n", s, o, c, 100 * (o - c) / o }'
