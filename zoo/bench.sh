#!/usr/bin/env bash
# Measure each scenario before and after its fix with wrk (fixed load: -t2 -c50).
#
#   zoo/bench.sh [SCENARIO...]            default: every scenario
#   DURATION=10s WARMUP=3s CONNS=50 PORT=28080 zoo/bench.sh sync-logging
#
# Prints one Markdown table row per scenario: RPS before, after, ratio.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-3s}
CONNS=${CONNS:-50}
PORT=${PORT:-28080}
command -v wrk >/dev/null || { echo "bench: wrk not found (apt-get install -y wrk)" >&2; exit 1; }

scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  mapfile -t scenarios < <(java -jar "$here/target/zoo.jar" --list)
fi

rps() { # scenario [--fixed]
  local pid r out
  pid=$(ZOO_PORT=$PORT "$here/run-scenario.sh" "$@")
  # shellcheck disable=SC2064
  trap "kill $pid 2>/dev/null || true" RETURN
  wrk -t2 -c"$CONNS" -d"$WARMUP" "http://127.0.0.1:$PORT/api" >/dev/null 2>&1 || true
  out=$(wrk -t2 -c"$CONNS" -d"$DURATION" --timeout 5s "http://127.0.0.1:$PORT/api" 2>&1)
  r=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  # Non-2xx answers and socket errors are not throughput: report them.
  if grep -q 'Non-2xx' <<<"$out"; then
    echo "bench: $*: $(grep 'Non-2xx' <<<"$out" | sed 's/^ *//')" >&2
  fi
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  echo "${r:-0}"
}

echo "| scenario | before (RPS) | after --fixed (RPS) | ratio |"
echo "|---|---:|---:|---:|"
for s in "${scenarios[@]}"; do
  if [ "$s" = startup-deadlock ]; then
    # Never answers before its fix: nothing to measure (the fix serves like healthy).
    echo "| $s | never answers | $(rps "$s" --fixed) | hung vs ok |"
    continue
  fi
  b=$(rps "$s")
  a=$(rps "$s" --fixed)
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "x%.1f", a / b; else print "n/a" }')
  echo "| $s | $b | $a | $ratio |"
done
