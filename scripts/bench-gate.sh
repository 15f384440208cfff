#!/usr/bin/env bash
# bench-gate.sh: measure the compare gate, not promise it (issue 13).
# Runs interleaved rounds of `tuneloop run` against a tiny Go service that
# spins a fixed CPU time per request (scripts/testdata/workserver): in each
# round A, A again (the same build: A/A), B5 (5% more work per request) and
# B10 (10% more). Consecutive groups of K rounds form pairs, each judged by
# `tuneloop compare A... -- X... --fail-on-regression PCT`:
#   false-alarm rate = A/A pairs that exit 3 (regression)
#   detection rate   = B5 / B10 pairs that exit 3
# exit 4 (inconclusive: run more) is counted separately: it is not a pass.
# Sizes (environment): ROUNDS=12 K=3 DUR=4s USERS=8 PCT=5 WORK_US=200.
# About ROUNDS*4 runs of DUR+2 s each: ~5 minutes with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-12} K=${K:-3} DUR=${DUR:-4s} USERS=${USERS:-8} PCT=${PCT:-5} WORK_US=${WORK_US:-200}
OUT=${OUT:-out/bench-gate}
# ANALYZE=1: judge the runs already in $OUT (e.g. after stopping early).
if [ -z "${ANALYZE:-}" ]; then
rm -rf "$OUT" && mkdir -p "$OUT"
go build -o "$OUT/tuneloop" ./cmd/tuneloop
go build -o "$OUT/workserver" ./scripts/testdata/workserver
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
declare -A port=([A]=28501 [A2]=28501 [B5]=28502 [B10]=28503)
"$OUT/workserver" -addr 127.0.0.1:28501 -work "${WORK_US}us" & pids+=($!)
"$OUT/workserver" -addr 127.0.0.1:28502 -work "$((WORK_US * 105 / 100))us" & pids+=($!)
"$OUT/workserver" -addr 127.0.0.1:28503 -work "$((WORK_US * 110 / 100))us" & pids+=($!)
sleep 1
for r in $(seq 1 "$ROUNDS"); do
	for arm in A A2 B5 B10; do
		"$OUT/tuneloop" run --target "http://127.0.0.1:${port[$arm]}/" -c "$USERS" -d "$DUR" --warm-up 1s \
			--no-catalog --no-gc-log --no-jfr -q -o json --out "$OUT/$arm/run-$r" >/dev/null 2>>"$OUT/runs.log"
	done
	echo "round $r/$ROUNDS done" >&2
done
fi
declare -A fail=() inc=() pairs=()
for g in $(seq 0 $((ROUNDS / K - 1))); do
	for arm in A2 B5 B10; do
		before=() after=()
		for i in $(seq $((g * K + 1)) $((g * K + K))); do before+=("$OUT/A/run-$i"); after+=("$OUT/$arm/run-$i"); done
		set +e
		"$OUT/tuneloop" compare --fail-on-regression "$PCT" "${before[@]}" -- "${after[@]}" >"$OUT/compare-$arm-$g.txt" 2>&1
		code=$?
		set -e
		pairs[$arm]=$((${pairs[$arm]:-0} + 1))
		[ "$code" = 3 ] && fail[$arm]=$((${fail[$arm]:-0} + 1))
		[ "$code" = 4 ] && inc[$arm]=$((${inc[$arm]:-0} + 1))
		[ "$code" = 0 ] || [ "$code" = 3 ] || [ "$code" = 4 ] || { echo "compare exit $code: $OUT/compare-$arm-$g.txt" >&2; }
	done
done
echo
echo "bench-gate: $ROUNDS rounds, $K runs per side, $DUR runs, gate PCT=$PCT"
printf '%-28s %6s %12s %14s\n' "pairs" "n" "exit 3" "exit 4 (inc.)"
printf '%-28s %6s %12s %14s\n' "A/A (false alarm)" "${pairs[A2]}" "${fail[A2]:-0}" "${inc[A2]:-0}"
printf '%-28s %6s %12s %14s\n' "+5% work (detection)" "${pairs[B5]}" "${fail[B5]:-0}" "${inc[B5]:-0}"
printf '%-28s %6s %12s %14s\n' "+10% work (detection)" "${pairs[B10]}" "${fail[B10]:-0}" "${inc[B10]:-0}"
echo
echo "the tool's advice in the A/A pairs (runs per side to add):"
grep -ho 'run [0-9]* more per side' "$OUT"/compare-A2-*.txt | sort | uniq -c || true
