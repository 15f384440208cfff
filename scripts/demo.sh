#!/usr/bin/env bash
# demo.sh: the README's main job, measured so that it can be trusted. The
# zoo's synchronous-logging service (before) and its fixed variant (after:
# AsyncAppender, the fix the first report recommends) are run in turn,
# before1 after1 before2 after2 before3 after3, by one
# `tuneloop run --repeat 3 --start BEFORE --start-b AFTER`, which prints the
# before/after with 95% intervals judged pair by pair. Then the fixed build
# is run against itself the same way (an A/A rerun): its comparison must say
# "no significant change" for throughput, or the demo fails. Everything
# stays on 127.0.0.1 and stops by itself; about 4 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/tuneloop
jar=zoo/target/zoo.jar
out=${OUT:-out}/demo
port=${DEMO_PORT:-28090}
secs=${DEMO_SECONDS:-10}
warm=${DEMO_WARMUP:-3}
users=${DEMO_USERS:-50}
# The A/A rerun must be able to rule out a change this large (percent) for
# "no significant change"; smaller is "inconclusive: run K more".
aa_pct=${DEMO_AA_PCT:-10}
[ -x "$bin" ] && [ -f "$jar" ] || { echo "run 'make build zoo' first" >&2; exit 1; }
command -v jq >/dev/null || { echo "demo.sh needs jq" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"

zoo() { # LOG-DIR EXTRA-FLAGS: the service's start command
	echo "exec java -jar $jar --scenario sync-logging --port $port --log-dir $out/$1 ${2:-}"
}
ab() { # NAME START-A START-B EXTRA-RUN-FLAGS...: 3 interleaved pairs, compare on stdout
	local name=$1 a=$2 b=$3
	shift 3
	"$bin" run --target "http://127.0.0.1:$port/api" -c "$users" -d "${secs}s" --warm-up "${warm}s" \
		--repeat 3 --start "$a" --start-b "$b" --out "$out/$name" --no-catalog -q "$@"
}

echo "== before/after: sync logging (a) and AsyncAppender (b) in turn, 3 pairs, $users users for ${secs}s each" >&2
ab fix "$(zoo logs-before)" "$(zoo logs-after --fixed)" 2>"$out/fix-runs.txt" | tee "$out/compare.txt"
# Flags before the runs: after "--" everything is a run folder.
"$bin" compare --output markdown "$out/fix/a" -- "$out/fix/b" >"$out/compare.md"
"$bin" compare --output json "$out/fix/a" -- "$out/fix/b" >"$out/compare.json"
# The lock flame graph of the three before runs against the three after, per request.
"$bin" compare --flame-kind lock --flame-diff "$out/flame-diff.html" "$out/fix/a" -- "$out/fix/b" >"$out/flame-diff.txt"

echo >&2
echo "== A/A rerun: the fixed build against itself, 3 pairs (gate and power at ${aa_pct}%)" >&2
set +e
ab rerun "$(zoo logs-aa-1 --fixed)" "$(zoo logs-aa-2 --fixed)" --fail-on-regression "$aa_pct" 2>"$out/rerun-runs.txt" | tee "$out/rerun.txt"
code=${PIPESTATUS[0]}
set -e
"$bin" compare --fail-on-regression "$aa_pct" --output json "$out/rerun/a" -- "$out/rerun/b" >"$out/rerun.json" || true

stat() { jq -r --arg k "$2" ".stats[] | select(.key == \$k) | $3" "$1"; }
echo
printf 'TPS before: %.0f   after (AsyncAppender): %.0f   %+.1f%% (95%% CI %+.1f%% to %+.1f%%, %s pairs): %s\n' \
	"$(stat "$out/compare.json" tps .before)" "$(stat "$out/compare.json" tps .after)" "$(stat "$out/compare.json" tps .change_pct)" \
	"$(stat "$out/compare.json" tps .ci_low_pct)" "$(stat "$out/compare.json" tps .ci_high_pct)" "$(jq -r .pairs "$out/compare.json")" \
	"$(stat "$out/compare.json" tps .verdict)" || true
aa=$(stat "$out/rerun.json" tps .verdict)
printf 'A/A rerun TPS: %+.1f%% (95%% CI %+.1f%% to %+.1f%%): %s (gate at %s%%: exit %s)\n' "$(stat "$out/rerun.json" tps .change_pct)" \
	"$(stat "$out/rerun.json" tps .ci_low_pct)" "$(stat "$out/rerun.json" tps .ci_high_pct)" "$aa" "$aa_pct" "$code" || true
echo "reports:"
echo "  $out/fix/a/run-1/report.html ... $out/fix/b/run-3/report.html  (and report.md)"
echo "  $out/compare.md  (the before/after table, also in compare.txt)"
echo "  $out/flame-diff.html  (lock time per request, before against after; the frames that shrank and grew in flame-diff.txt)"
if [ "$aa" != "no significant change" ] || [ "$code" != 0 ]; then
	echo >&2
	echo "DEMO FAILED: the A/A rerun of the same build says \"$aa\" (exit $code), not \"no significant change\" at ${aa_pct}%: the host is too noisy for 3 pairs (see $out/rerun.txt)" >&2
	exit 1
fi
