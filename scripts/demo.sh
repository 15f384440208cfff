#!/usr/bin/env bash
# demo.sh: the README's main job. Runs the zoo's synchronous-logging service
# under load with `tuneloop run`, then its fixed variant (AsyncAppender, the
# fix the first report recommends), and prints where both reports are and
# the TPS before and after. Everything stays on 127.0.0.1 and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/tuneloop
jar=zoo/target/zoo.jar
out=${OUT:-out}/demo
port=${DEMO_PORT:-28090}
secs=${DEMO_SECONDS:-30}
users=${DEMO_USERS:-50}
[ -x "$bin" ] && [ -f "$jar" ] || { echo "run 'make build zoo' first" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"

one() { # NAME EXTRA-ZOO-FLAGS
  local name=$1; shift
  echo "== $name: tuneloop run, $users users for ${secs}s" >&2
  "$bin" run --target "http://127.0.0.1:$port/api" -c "$users" -d "${secs}s" --warm-up 5s \
    --start "exec java -jar $jar --scenario sync-logging --port $port --log-dir $out/logs-$name $*" \
    --out "$out/$name" --no-catalog -q
}
one before
one after --fixed

tps() { awk -F': ' '/"tps"/ {gsub(/,/, "", $2); print $2; exit}' "$1/load.json"; }
b=$(tps "$out/before"); a=$(tps "$out/after")
echo
"$bin" compare "$out/before" "$out/after" | tee "$out/compare.txt"
"$bin" compare "$out/before" "$out/after" --output markdown > "$out/compare.md"
echo
echo "TPS before: $b   after (AsyncAppender): $a   x$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "?" }')"
echo "reports:"
echo "  $out/before/report.html  (and report.md)"
echo "  $out/after/report.html"
echo "  $out/compare.md  (the before/after table, also in compare.txt)"
