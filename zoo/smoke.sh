#!/usr/bin/env bash
# Start every scenario and its fix for a few seconds, check that GET /api answers 200, stop it.
#   ZOO_PORT=28080 zoo/smoke.sh [SCENARIO...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
port=${ZOO_PORT:-28080}
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  mapfile -t scenarios < <(java -jar "$here/target/zoo.jar" --list)
fi
fail=0
pid=""
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; }
trap cleanup EXIT
for s in "${scenarios[@]}"; do
  for variant in "" --fixed; do
    name="$s${variant:+ $variant}"
    if ! pid=$(ZOO_PORT=$port "$here/run-scenario.sh" "$s" $variant); then
      echo "FAIL $name: did not start"; fail=1; pid=""; continue
    fi
    if [ "$s" = startup-deadlock ] && [ -z "$variant" ]; then
      # Deadlocked at start-up by design: alive, and /api must not answer.
      code=$(curl -s -o /dev/null -m 3 -w '%{http_code}' "http://127.0.0.1:$port/api" || true)
      alive=0; kill -0 "$pid" 2>/dev/null && alive=1
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      pid=""
      if [ "$alive" = 1 ] && [ "$code" = 000 ]; then
        echo "ok   $name: alive and never answers (deadlocked at start-up)"
      else
        echo "FAIL $name: alive=$alive, GET /api answered $code"; fail=1
      fi
      continue
    fi
    ok=0
    for _ in 1 2 3 4 5; do
      code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$port/api" || true)
      [ "$code" = 200 ] && ok=$((ok + 1))
    done
    sleep 2
    body=$(curl -s -m 5 "http://127.0.0.1:$port/api" || true)
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; echo "WARN $name: needed kill -9"; fi
    pid=""
    if [ "$ok" -eq 5 ] && [ -n "$body" ]; then
      echo "ok   $name: 5/5 GET /api 200; $body"
    else
      echo "FAIL $name: $ok/5 GET /api answered 200; last body: ${body:-<none>}"; fail=1
    fi
  done
done
exit $fail
