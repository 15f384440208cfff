#!/usr/bin/env bash
# Regenerates the real thread dumps of the zoo's wait-kind scenarios that tuneloop's wait-for
# analysis is tested on (internal/jvm/threaddump/testdata/jdk17_zoo_SCENARIO_jcmd.txt), and
# measures each scenario and its fix with `tuneloop load`:
#   for each scenario: start it, `tuneloop load -c 64 -d 20s`, 8 s into the load take
#   `jcmd PID Thread.print -l` three times a second apart (concatenated in one file), stop it;
#   then the same load on the --fixed variant (no dumps). Load summaries go to $OUT/.
#
#   zoo/wait-dumps.sh [SCENARIO...]      (default: future-serial permit-starvation
#                                          queue-handoff remote-call delayed-ack)
# Env: TUNELOOP (default bin/tuneloop), ZOO_PORT (28180), OUT (/tmp/zoo-wait-dumps),
#      DUMPS (internal/jvm/threaddump/testdata), USERS (64), DURATION (20s).
# startup-deadlock has no load: its dumps are taken 2 s after start (it never answers).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
tl=${TUNELOOP:-$root/bin/tuneloop}
port=${ZOO_PORT:-28180}
out=${OUT:-/tmp/zoo-wait-dumps}
dumps=${DUMPS:-$root/internal/jvm/threaddump/testdata}
users=${USERS:-64}
duration=${DURATION:-20s}
mkdir -p "$out"
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  scenarios=(future-serial permit-starvation queue-handoff remote-call delayed-ack)
fi
pid=""
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

stop() {
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  pid=""
}

take3() { # file
  : >"$1"
  for i in 1 2 3; do
    jcmd "$pid" Thread.print -l >>"$1"
    [ "$i" = 3 ] || sleep 1
  done
  # jcmd's first line is the pid: the same in every run of a scenario, but not across runs.
  echo "dumps: $1 ($(grep -c '^Full thread dump' "$1") dumps)"
}

for s in "${scenarios[@]}"; do
  for variant in "" --fixed; do
    name="$s${variant:+-fixed}"
    pid=$(ZOO_PORT=$port ZOO_LOG_DIR=$out "$here/run-scenario.sh" "$s" $variant)
    if [ "$s" = startup-deadlock ]; then
      if [ -z "$variant" ]; then
        sleep 2
        take3 "$dumps/jdk17_zoo_${s}_jcmd.txt"
      else
        curl -fsS -m 5 "http://127.0.0.1:$port/api" && echo
      fi
      stop
      continue
    fi
    "$tl" load "http://127.0.0.1:$port/api" -c "$users" -d "$duration" >"$out/load-$name.txt" 2>&1 &
    lpid=$!
    if [ -z "$variant" ]; then
      sleep 8
      take3 "$dumps/jdk17_zoo_${s}_jcmd.txt"
    fi
    wait "$lpid" || true
    stop
    echo "$name: $(grep -E '^  (requests|latency|errors)' "$out/load-$name.txt" | tr -s ' ' | tr '\n' ' ')"
  done
done
