#!/usr/bin/env bash
# make eval: runs every service of the eval zoo (zoo/eval/services.tsv) under `tuneloop run`, one at
# a time, on 127.0.0.1, and prints a confusion table: the mechanism and application frame each
# service declares against what the run's verdict (finding "run.verdict", evidence "mechanism" and
# "code") names, and the top-1 accuracy.
#
# Env: TUNELOOP (bin/tuneloop), JAVA (java on PATH), EVAL_OUT (out/eval-<time>), EVAL_ONLY (extended
# regex on service names), EVAL_FIXED=1 (run the fixed variants instead), EVAL_DURATION (overrides
# each row's duration), EVAL_WARMUP (3s), EVAL_PORT (first port tried, 28400).
# Exit status: 1 when any service failed to start or its run failed (the table is still printed),
# 0 otherwise, whatever the accuracy. Needs jq.
set -uo pipefail
cd "$(dirname "$0")/.."

TUNELOOP=${TUNELOOP:-bin/tuneloop}
JAVA=${JAVA:-java}
MANIFEST=${EVAL_MANIFEST:-zoo/eval/services.tsv}
OUT=${EVAL_OUT:-out/eval-$(date -u +%Y%m%d-%H%M%S)}
WARMUP=${EVAL_WARMUP:-3s}
PORT=${EVAL_PORT:-28400}
ZOO=$(cd zoo && pwd)

command -v jq >/dev/null || { echo "eval: needs jq (apt-get install jq)" >&2; exit 2; }
[ -x "$TUNELOOP" ] || { echo "eval: $TUNELOOP not built (make build)" >&2; exit 2; }
command -v "$JAVA" >/dev/null || { echo "eval: no $JAVA" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# free_port N: the first port >= N nobody listens on at 127.0.0.1.
free_port() {
  local p=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}

# frame_hit NAMED EXPECTED: NAMED (pkg.Class.method[:line]) is one of EXPECTED's |-separated frames.
frame_hit() {
  local named=${1%:*} alt
  [ "$1" = "-" ] && return 1
  [[ $1 =~ :[0-9]+$ ]] || named=$1
  IFS='|' read -ra alts <<<"$2"
  for alt in "${alts[@]}"; do [ "$named" = "$alt" ] && return 0; done
  return 1
}

tsv="$OUT/eval.tsv"
printf 'service\texpected_mechanism\tnamed_mechanism\ttop1\texpected_code\tnamed_code\tcode_hit\ttps\tverdict\n' >"$tsv"
total=0 hits=0 codehits=0 failed=0
started=$(date -u +%s)
load_before=$(cut -d" " -f1-3 /proc/loadavg)
while IFS=$'\t' read -r name start path users duration mech code fixed; do
  [[ -z "$name" || $name == \#* ]] && continue
  [[ -n "${EVAL_ONLY:-}" && ! $name =~ ${EVAL_ONLY} ]] && continue
  if [ "${EVAL_FIXED:-}" = 1 ]; then
    [ "$fixed" = "-" ] && continue
    name="$name-fixed"
    start="$start $fixed"
  fi
  total=$((total + 1))
  port=$(free_port "$PORT")
  PORT=$((port + 1))
  dir="$OUT/$name"
  tmp="$OUT/$name.tmp"
  rm -rf "$dir" "$tmp"
  mkdir -p "$tmp"
  cmd=${start//\{JAVA\}/$JAVA}
  cmd=${cmd//\{ZOO\}/$ZOO}
  cmd=${cmd//\{PORT\}/$port}
  cmd=${cmd//\{TMP\}/$tmp}
  target="http://127.0.0.1:$port$path"
  [ -n "${EVAL_DURATION:-}" ] && duration=$EVAL_DURATION
  echo "== $name: $users users, $duration, $target" >&2
  # A bound on the whole run: start-up, warm-up, load, collection; the run stops its service itself.
  timeout -k 10 600 "$TUNELOOP" run --start "$cmd" --target "$target" -c "$users" -d "$duration" --warm-up "$WARMUP" \
    --start-timeout 150s --out "$dir" -o json -q --no-catalog </dev/null >"$dir.json" 2>"$dir.err"
  rc=$?
  rep="$dir/report.json"
  if [ $rc -ne 0 ] || [ ! -s "$rep" ]; then
    failed=$((failed + 1))
    echo "   run failed (exit $rc): $(tail -n 3 "$dir.err" | tr '\n' ' ')" >&2
  fi
  named_mech=- named_code=- tps=- subject=-
  if [ -s "$rep" ]; then
    v='first(.run.findings[]? | select(.id == "run.verdict"))'
    named_mech=$(jq -r "$v | first(.evidence[]? | select(.key == \"mechanism\") | .value) // \"-\"" "$rep")
    named_code=$(jq -r "$v | first(.evidence[]? | select(.key == \"code\") | .value) // \"-\"" "$rep")
    subject=$(jq -r "($v | .subject) // \"-\"" "$rep")
    tps=$(jq -r '(.load.tps // 0) | floor' "$rep")
    if [ "$(jq -r '.load.requests // 0' "$rep")" = 0 ]; then
      failed=$((failed + 1))
      echo "   the service answered no request" >&2
    fi
  fi
  top1=no
  [ "$named_mech" = "$mech" ] && top1=yes && hits=$((hits + 1))
  codehit=no
  frame_hit "$named_code" "$code" && codehit=yes && codehits=$((codehits + 1))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$mech" "$named_mech" "$top1" "$code" "$named_code" "$codehit" "$tps" "$subject" >>"$tsv"
  echo "   verdict $subject, mechanism $named_mech, code $named_code, TPS $tps" >&2
done <"$MANIFEST"

elapsed=$(($(date -u +%s) - started))
{
  echo "Eval zoo, $(date -u '+%Y-%m-%d %H:%M') UTC on $(nproc) CPUs ($(uname -m), $("$JAVA" -version 2>&1 | head -1)), $total services in ${elapsed} s;"
  echo "load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg) (other work on the host shows as CPU saturation):"
  echo
  echo "| service | expected mechanism | named mechanism | top-1 | expected code frame | named code frame | code | TPS | verdict finding |"
  echo "|---|---|---|---|---|---|---|---:|---|"
  tail -n +2 "$tsv" | while IFS=$'\t' read -r s em nm t ec nc ch tp sub; do
    echo "| $s | $em | $nm | $t | ${ec//|/ or } | $nc | $ch | $tp | $sub |"
  done
  echo
  echo "top-1 mechanism: $hits of $total; code frame: $codehits of $total; failed runs: $failed"
  echo "run folders: $OUT"
} | tee "$OUT/eval.md"
[ "$failed" -eq 0 ]
