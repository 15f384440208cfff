#!/usr/bin/env bash
# demo-tune.sh (make demo-tune): `tuneloop experiment` on the zoo's GC-pressure
# service. Heap {64m, 256m} x collector {G1, Parallel}: four arms, two short
# trials each in interleaved blocks, then the best arm re-measured against the
# baseline (64m, G1) in a fresh block of three trials a side; prints the table.
# Afterwards it asserts that nothing changed: no journal transaction left open,
# no zoo JVM left running, the service's jar and the plan byte-identical.
# About 4-5 minutes on 2 cores (14 trials of ~20 s: JVM start, 3 s warm-up,
# 8 s measured, stop). Everything stays on 127.0.0.1.
#
#   DEMO_PORT (28095)  DEMO_SECONDS (8)  DEMO_USERS (16)  OUT (out)  TUNELOOP (bin/tuneloop)
set -euo pipefail
cd "$(dirname "$0")/.."
jar=zoo/target/zoo.jar
out=${OUT:-out}/demo-tune
port=${DEMO_PORT:-28095}
secs=${DEMO_SECONDS:-8}
users=${DEMO_USERS:-16}
bin=${TUNELOOP:-bin/tuneloop}
[ -f "$jar" ] || { echo "demo-tune: $jar not found: run 'make zoo' first" >&2; exit 1; }
command -v java >/dev/null || { echo "demo-tune: no java on PATH" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
if [ ! -x "$bin" ]; then
  bin=$out/tuneloop
  CGO_ENABLED=0 go build -o "$bin" ./cmd/tuneloop
fi
if curl -s -o /dev/null -m 2 "http://127.0.0.1:$port/" 2>/dev/null; then
  echo "demo-tune: something already answers on 127.0.0.1:$port; set DEMO_PORT" >&2
  exit 1
fi

plan=$out/plan.yaml
cat >"$plan" <<EOF
# The GC-pressure service: ~1 MiB of garbage per request, ~15 MiB live.
service:
  start: exec java -jar $jar --scenario gc-pressure --port $port --log-dir $out/zoo-logs
  target: http://127.0.0.1:$port/api
  start_timeout: 60s
  stop_timeout: 5s
load:
  users: $users
  duration: ${secs}s
  warm_up: 3s
repetitions: 2
seed: 3
objective:
  maximize: tps
  constraints: {p99_ms: 3000, error_pct: 1}
knobs:
  - name: heap
    kind: jvm
    values: ["-Xms64m -Xmx64m", "-Xms256m -Xmx256m"]
    baseline: "-Xms64m -Xmx64m"
  - name: gc
    kind: jvm
    values: ["-XX:+UseG1GC", "-XX:+UseParallelGC"]
    baseline: "-XX:+UseG1GC"
EOF

before_sums=$(sha256sum "$jar" "$plan")
journal=$out/journal
mkdir -p "$journal"
echo "== tuneloop experiment $plan --out $out/exp" >&2
"$bin" experiment "$plan" --out "$out/exp" --journal "$journal" --no-catalog --lang "${DEMO_LANG:-en}"

echo
echo "== afterwards: nothing changed"
fail=0
# 1. No journal transaction left open, and the trial log reverted every one it applied.
applied=$(grep -c '"op":"applied"' "$out/exp/trials.jsonl" || true)
reverted=$(grep -c '"op":"reverted"' "$out/exp/trials.jsonl" || true)
revert_out=$("$bin" revert --all --journal "$journal" 2>&1 || true)
if [ "$applied" != "$reverted" ]; then
  echo "FAIL: $applied transactions applied, $reverted reverted" ; fail=1
else
  echo "ok: journal: $applied transactions applied, $reverted reverted; revert --all: $(echo "$revert_out" | head -1)"
fi
# 2. No zoo JVM of this demo left running.
if pgrep -f -- "--scenario gc-pressure --port $port" >/dev/null; then
  echo "FAIL: a zoo JVM still runs:"; pgrep -af -- "--scenario gc-pressure --port $port"; fail=1
else
  echo "ok: no zoo JVM left running on port $port"
fi
# 3. The service's files untouched (the overlay edits nothing).
if [ "$(sha256sum "$jar" "$plan")" != "$before_sums" ]; then
  echo "FAIL: the jar or the plan changed"; fail=1
else
  echo "ok: $jar and the plan byte-identical"
fi
# 4. The reports exist.
for f in report.html report.md report.json; do
  [ -s "$out/exp/$f" ] || { echo "FAIL: no $out/exp/$f"; fail=1; }
done
echo "reports: $out/exp/report.html (and report.md, report.json); trials: $out/exp/trials/"
exit $fail
