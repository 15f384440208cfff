#!/usr/bin/env bash
# bench-gate.sh: measure the compare gate, not promise it (issue 13).
# Four copies of a tiny Go service that does a fixed CPU work per request
# (scripts/testdata/workserver): A and A2 do the same work (the same build),
# B5 5% more, B10 10% more. Each comparison is one
#   tuneloop run --target A --target-b X --repeat K --fail-on-regression PCT
# which runs A and X in turn (A1 X1 A2 X2 ...: each pair sees the same
# neighbour) and judges the K pairs with the paired interval:
#   false-alarm rate = A/A comparisons that exit 3 (regression)
#   detection rate   = B5 / B10 comparisons that exit 3
# exit 4 (inconclusive: run more) is counted apart: it is not a pass. The
# same runs are also judged as two unpaired sets (compare --design
# unpaired, Welch) for contrast. Comparisons of the kinds alternate (A/A,
# B5, A/A, B10, ...) so a busy spell of the host hits every kind alike.
# Sizes (environment): AA=28 POWER=14 (comparisons of each kind) K=3 DUR=2s
# WARM=0.5s USERS=4 PCT=5 UNITS=2000. About (AA+2*POWER)*2K runs of DUR+WARM
# plus ~1 s: ~20 minutes with the defaults on 2 cores. DELAY=4ms: the work
# is a fixed wait instead (B5 and B10 wait 5% and 10% longer, UNITS=20).
# MODE=windows judges each comparison with one `tuneloop load A --versus X`
# instead: both services up, loaded in turn in WINDOW windows (A B B A ...),
# PAIRS pairs of adjacent windows (default 8 of 1s): the sides of a pair are
# a second apart rather than a run apart; p99 is each side's windows pooled,
# its interval bootstrapped over the pairs. (Unpaired and FOLLOW do not
# apply.)
# FOLLOW=1 (default) does what a user told "inconclusive: run K more" does:
# when the first K pairs are inconclusive and the tool's recommended count
# is at most KMAX (12) pairs, it runs the pairs missing and judges all of
# them together; the exit then counted is that second judgement (the
# power the issue asks for is "at the repetition count the tool recommends").
# MODE=sets measures the design CI uses against a stored baseline build:
# sequential sets of `tuneloop run --start ... --repeat K` launches (each
# run its own JVM launch: all of one set, then all of the next), judged by
#   tuneloop compare --fail-on-regression PCT A... -- B...
# over launches (Welch t and an exact U-test that must agree). Services:
# the zoo's (zoo/target/zoo.jar, `make zoo`), SERVICES="cpu-hot
# sync-logging" (one CPU-bound, one lock-bound). Each service's sets form
# a chain: every set of the same build (100% work) is the B of an A/A
# comparison whose A is that service's previous set of the same build (a
# false alarm is exit 3), and is the A of the next; a set doing SLOW="110
# 120" percent of the work per request (zoo --work-pct: +10% / +20%
# checksum or audit lines) is the B of a power comparison against the
# previous same-build set (detection is exit 3). So one set of launches
# serves one comparison, not two: the A of a comparison is what CI holds,
# a baseline set measured earlier (here one set to a few before, other
# sets and the other service having run in between). The chain starts
# (and starts again on another machine, see KEEP) with a baseline set
# that is no comparison's B. A set launches the largest K of KS="3 5";
# every K of KS is judged on the launches next to the switch: the last K
# of A against the first K of B. Neighbouring A/A comparisons share a set
# (one's B is the next one's A): the rate over all is unbiased, and the
# table also gives it over comparisons that share no set (every other
# one), whose exact interval assumes nothing. For every service: AA A/A
# comparisons and POWER of each slowdown, the kinds interleaved (round r:
# for each service, its A/A set, then its slower sets). Sizes: AA=50
# POWER=10 DUR=8s WARM=15s USERS=16 PCT=5: 2 services x (AA + 1 + 2
# POWER) x 5 = 710 launches of ~DUR+WARM+2 s, about 5 hours on 2 cores.
# The warm-up is long because a launch is judged at its steady state: on
# this 2-core VM the zoo's cpu-hot climbs from ~150 to ~1,500 TPS over
# its first 12-18 s (the JIT), sync-logging over 7 s; with a 2 s warm-up
# every 5 s run still climbed, and its launches spread 5x. Every launch's
# steady-state TPS and p99 are kept once, by set, in $OUT/launches.tsv
# (the per-launch distributions the Go simulation in internal/compare
# resamples).
# REJUDGE=1 judges the comparisons already in $OUT again with this
# tree's tuneloop (the launches are kept) and prints the table.
# The measurement can be taken in parts: MAXTIME=SECONDS starts no new
# set after that long, and RESUME=1 carries on in $OUT with the
# comparisons not yet in results.tsv (the plan is fixed by the settings,
# which must be the same: $OUT/params). A set cut off by a kill is
# measured again. The table at the end is over every comparison in
# results.tsv and says how many of the planned it holds. The measurement
# outlives the machine: after every comparison its settings, build,
# results.tsv and launches.tsv (a few KB) are copied to KEEP
# (docs/bench/gate-sets, in the repo; KEEP= to skip), and RESUME=1 with
# no results in OUT starts from KEEP's, rebuilding tuneloop at the
# recorded commit (a git worktree) so one table holds one gate; each
# service's chain then starts again with a baseline set.
# MODE=sim: no launches; the gate's power curve over the launches recorded
# in internal/compare/testdata/launches (+5% to +100%; sets of 5 and 10 a
# side, 8 and 10 interleaved pairs; 1000 simulated comparisons a point)
# and the smallest slowdown caught in 90% of them (TestGatePowerCurve; a
# few minutes).
# MODE=history: the set-to-set shift measured from a catalog, end to end on
# real launches: SETS (5) sets of K (4) launches of one zoo SERVICE
# (cpu-hot) and one build, one after the other, each `run --start ...
# --repeat K` into a catalog of their own (OUT/runs.db); then the last two
# judged by `compare --fail-on-regression PCT` without the catalog and with
# it (the sets before them its history), both printed (about 6 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${MODE:-runs}
if [ "$MODE" = sim ]; then
	TUNELOOP_GATE_POWER=1 exec go test -count=1 -run '^TestGatePowerCurve$' -v ./internal/compare
fi
if [ "$MODE" = history ]; then
	SERVICE=${SERVICE:-cpu-hot} SETS=${SETS:-5} K=${K:-4} DUR=${DUR:-5s} WARM=${WARM:-8s} USERS=${USERS:-16} PCT=${PCT:-5}
	PORT=${PORT:-28620} JAR=${JAR:-zoo/target/zoo.jar} OUT=${OUT:-out/bench-gate-history}
	[ -f "$JAR" ] || { echo "bench-gate MODE=history: $JAR missing: make zoo" >&2; exit 1; }
	[ "$SETS" -ge 5 ] || { echo "bench-gate MODE=history: SETS=$SETS: want 5 or more (3 earlier sets, then the two compared)" >&2; exit 2; }
	rm -rf "$OUT"
	mkdir -p "$OUT"
	go build -o "$OUT/tuneloop" ./cmd/tuneloop
	for i in $(seq 1 "$SETS"); do
		"$OUT/tuneloop" run --start "exec java ${JAVA_OPTS:-} -jar $JAR --scenario $SERVICE --port $PORT --log-dir $OUT/zoo-logs --data-dir $OUT/zoo-data" \
			--target "http://127.0.0.1:$PORT/api" --repeat "$K" -c "$USERS" -d "$DUR" --warm-up "$WARM" \
			--catalog "$OUT/runs.db" --no-gc-log --no-jfr -q --out "$OUT/set-$i" >/dev/null 2>>"$OUT/runs.log"
		rm -rf "$OUT/zoo-logs" "$OUT/zoo-data"
		echo "set $i of $SETS measured ($K launches), load $(cut -d' ' -f1-3 /proc/loadavg)"
	done
	prev=$OUT/set-$((SETS - 1)) last=$OUT/set-$SETS
	for how in --no-catalog "--catalog $OUT/runs.db"; do
		echo "== compare $how --fail-on-regression $PCT $prev -- $last"
		# shellcheck disable=SC2086 # $how is two words on purpose
		"$OUT/tuneloop" compare $how --fail-on-regression "$PCT" "$prev" -- "$last" | tee "$OUT/compare${how%% *}.txt" || echo "(exit $?)"
	done
	exit 0
fi
if [ "$MODE" = sets ]; then
	SERVICES=${SERVICES:-"cpu-hot sync-logging"} KS=${KS:-"3 5"} AA=${AA:-50} POWER=${POWER:-10} SLOW=${SLOW:-"110 120"}
	DUR=${DUR:-8s} WARM=${WARM:-15s} USERS=${USERS:-16} PCT=${PCT:-5} PORT=${PORT:-28610} JAR=${JAR:-zoo/target/zoo.jar}
	OUT=${OUT:-out/bench-gate-sets}
	[ -f "$JAR" ] || { echo "bench-gate MODE=sets: $JAR missing: make zoo" >&2; exit 1; }
	results="$OUT/results.tsv" launches="$OUT/launches.tsv" KEEP=${KEEP-docs/bench/gate-sets}
	if [ -n "${RESUME:-}" ] && [ -z "${REJUDGE:-}" ] && [ ! -f "$results" ] && [ -n "$KEEP" ] && [ -f "$KEEP/results.tsv" ]; then
		mkdir -p "$OUT" && cp "$KEEP/params" "$KEEP/build" "$KEEP/results.tsv" "$KEEP/launches.tsv" "$OUT/"
		echo "bench-gate MODE=sets RESUME=1: carrying on from $KEEP (build $(cat "$OUT/build"))" >&2
	fi
	if [ -n "${REJUDGE:-}" ] && [ ! -f "$results" ]; then
		echo "bench-gate MODE=sets REJUDGE=1: no $results to judge again" >&2
		exit 1
	fi
	params="design=chain SERVICES=$SERVICES KS=$KS AA=$AA POWER=$POWER SLOW=$SLOW DUR=$DUR WARM=$WARM USERS=$USERS PCT=$PCT JAR=$JAR JAVA_OPTS=${JAVA_OPTS:-}"
	if [ -n "${RESUME:-}${REJUDGE:-}" ] && [ -f "$results" ]; then
		if [ "$(cat "$OUT/params" 2>/dev/null)" != "$params" ]; then
			echo "bench-gate MODE=sets RESUME=1: $OUT was measured with other settings:" >&2
			echo "  there: $(cat "$OUT/params" 2>/dev/null)" >&2
			echo "  now:   $params" >&2
			echo "give the same settings, or another OUT" >&2
			exit 1
		fi
	else
		rm -rf "$OUT" && mkdir -p "$OUT"
		echo "$params" >"$OUT/params"
		printf 'n\tservice\tk\twork_b\tset_a\tset_b\tloadavg\texit\ttps_pct\ttps_ci99\tu_p\tgate_agreement\tgroups\tgate_more\tothers_max_pct\n' >"$results"
		printf 'set\tservice\twork_pct\trun\ttps\tp99_ms\n' >"$launches"
	fi
	# others_max_pct came later: a table without it gets it from the
	# comparisons' pages where they are here ("-" where not).
	if [ "$(head -1 "$results" | awk -F'\t' '{ print NF }')" = 14 ]; then
		{
			printf '%s\tothers_max_pct\n' "$(head -1 "$results")"
			tail -n +2 "$results" | while IFS= read -r row; do
				IFS=$'\t' read -r n _ k _ <<<"$row"
				o=$(jq -r '[.before.runs[], .after.runs[] | .other_cpu_pct // 0] | max | round' "$OUT/c$n-k$k.json" 2>/dev/null || true)
				printf '%s\t%s\n' "$row" "${o:--}"
			done
		} >"$results.tmp" && mv "$results.tmp" "$results"
	fi
	# RESUME carries on with the binary that measured the first part (built
	# again at its commit on another machine), so one table holds one gate;
	# REJUDGE judges every comparison anew with this tree's.
	if [ -n "${RESUME:-}" ] && [ -z "${REJUDGE:-}" ] && [ ! -x "$OUT/tuneloop" ] && [ -s "$OUT/build" ]; then
		rev=$(cat "$OUT/build")
		case $rev in *-dirty | '?')
			echo "bench-gate MODE=sets RESUME=1: $OUT was measured by an uncommitted build ($rev) that cannot be rebuilt; REJUDGE=1 or another OUT" >&2
			exit 1 ;;
		esac
		wt=$(mktemp -d) && git worktree add -q --detach "$wt" "$rev"
		bin="$(cd "$OUT" && pwd)/tuneloop"
		(cd "$wt" && go build -o "$bin" ./cmd/tuneloop) || { git worktree remove --force "$wt"; exit 1; }
		git worktree remove --force "$wt"
	elif [ -z "${RESUME:-}" ] || [ -n "${REJUDGE:-}" ] || [ ! -x "$OUT/tuneloop" ]; then
		go build -o "$OUT/tuneloop" ./cmd/tuneloop
		git describe --always --dirty >"$OUT/build" 2>/dev/null || true
	fi
	keep() { # the compact measurement into the repo, whole files only
		[ -n "$KEEP" ] || return 0
		mkdir -p "$KEEP" && local f
		for f in params build results.tsv launches.tsv; do cp "$OUT/$f" "$KEEP/.$f.tmp" && mv "$KEEP/.$f.tmp" "$KEEP/$f"; done
	}
	kmax=$(printf '%s\n' $KS | sort -n | tail -1)
	order=()
	for ((r = 1; r <= AA || r <= POWER; r++)); do
		for svc in $SERVICES; do
			if [ "$r" -le "$AA" ]; then order+=("$svc:100"); fi
			if [ "$r" -le "$POWER" ]; then for w in $SLOW; do order+=("$svc:$w"); done; fi
		done
	done
	setdir() { echo "$OUT/s$1-$2-w$3"; } # ID SERVICE WORK_PCT
	newset() { # SERVICE WORK_PCT: one set of kmax launches, one after the other; prints its id
		local id dir try code
		# (on another machine: after every set the kept tables name)
		id=$(cat "$OUT/nextset" 2>/dev/null || awk -F'\t' 'FNR > 1 && FILENAME ~ /launches/ && $1 > m { m = $1 }
			FNR > 1 && FILENAME ~ /results/ { if ($5 > m) m = $5; if ($6 > m) m = $6 } END { print m + 1 }' "$launches" "$results")
		echo $((id + 1)) >"$OUT/nextset"
		dir=$(setdir "$id" "$1" "$2")
		# A set is whole (kmax runs, each with its page) or measured again;
		# a setup that fails three times in a row stops the bench.
		for try in 1 2 3; do
			rm -rf "$dir"
			set +e
			"$OUT/tuneloop" run --start "exec java ${JAVA_OPTS:-} -jar $JAR --scenario $1 --port $PORT --work-pct $2 --log-dir $OUT/zoo-logs --data-dir $OUT/zoo-data" \
				--target "http://127.0.0.1:$PORT/api" --repeat "$kmax" -c "$USERS" -d "$DUR" --warm-up "$WARM" \
				--no-catalog --no-gc-log --no-jfr -q --out "$dir" >/dev/null 2>>"$OUT/runs.log"
			code=$?
			set -e
			rm -rf "$OUT/zoo-logs" "$OUT/zoo-data"
			if [ "$code" = 0 ] && [ -f "$dir/run-$kmax/report.json" ]; then
				touch "$dir/.measured"
				echo "set $id ($1, $2% work) measured, $(($(date +%s) - start)) s" >&2
				echo "$id"
				return 0
			fi
			echo "set $id ($1, $2% work): run exited $code (try $try of 3; $OUT/runs.log)" >&2
		done
		return 1
	}
	recorded() { awk -F'\t' -v s="$1" 'NR > 1 && $1 == s { f = 1 } END { exit !f }' "$launches"; }
	judge() { # N SERVICE WORK LOAD SET_A SET_B: judge each K on the launches next to the switch
		local n=$1 svc=$2 w=$3 load=$4 sa=$5 sb=$6 k i code line a b lines=() da db
		da=$(setdir "$sa" "$svc" 100) db=$(setdir "$sb" "$svc" "$w")
		for k in $KS; do
			a=() b=()
			for ((i = kmax - k + 1; i <= kmax; i++)); do a+=("$da/run-$i"); done
			for ((i = 1; i <= k; i++)); do b+=("$db/run-$i"); done
			set +e
			"$OUT/tuneloop" compare --no-catalog --fail-on-regression "$PCT" -o json "${a[@]}" -- "${b[@]}" >"$OUT/c$n-k$k.json" 2>>"$OUT/runs.log"
			code=$?
			set -e
			line=$(jq -r --arg n "$n" --arg svc "$svc" --arg k "$k" --arg w "$w" --arg sa "$sa" --arg sb "$sb" --arg load "$load" --arg code "$code" '
				def s(k): (.stats[] | select(.key == k));
				def f: if type == "number" then (. * 10 | round) / 10 else . end;
				[$n, $svc, $k, $w, $sa, $sb, $load, $code, (s("tps").change_pct // "-" | f), "[\(s("tps").gate_ci_low_pct // "-" | f), \(s("tps").gate_ci_high_pct // "-" | f)]",
				 (s("tps").u_test_p // "-" | if type == "number" then (. * 1000 | round) / 1000 else . end), (s("tps").gate_agreement // "agree"),
				 ((.launch_groups // []) | length), ([s("tps").gate_more_runs // 0, s("p99_ms").gate_more_runs // 0] | max),
				 ([.before.runs[], .after.runs[] | .other_cpu_pct // 0] | max | round)] | @tsv' "$OUT/c$n-k$k.json" 2>/dev/null) || line=""
			# No page (compare failed) or no throughput: a line of the same 15 columns.
			[ -n "$line" ] || line=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t-' "$n" "$svc" "$k" "$w" "$sa" "$sb" "$load" "$code")
			lines+=("$line")
			echo "comparison $n (set $sb against set $sa; $svc, $k a side, B at $w% work): exit $code, load $load, $(($(date +%s) - start)) s" >&2
		done
		# Every launch once, by set: the A set's when it was a baseline.
		if ! recorded "$sa"; then
			jq -r --arg s "$sa" --arg svc "$svc" '.before.runs | to_entries[] | [$s, $svc, "100", (.key + 1), (.value.tps // "-"), (.value.p99_ms // "-")] | @tsv' "$OUT/c$n-k$kmax.json" >>"$launches" 2>/dev/null || true
		fi
		if ! recorded "$sb"; then
			jq -r --arg s "$sb" --arg svc "$svc" --arg w "$w" '.after.runs | to_entries[] | [$s, $svc, $w, (.key + 1), (.value.tps // "-"), (.value.p99_ms // "-")] | @tsv' "$OUT/c$n-k$kmax.json" >>"$launches" 2>/dev/null || true
		fi
		# The comparison's lines together, so a kill leaves it whole or absent.
		printf '%s\n' "${lines[@]}" >>"$results"
		[ -n "${REJUDGE:-}" ] || keep
	}
	start=$(date +%s)
	if [ -n "${REJUDGE:-}" ]; then
		# Only where every set's runs are (the machine that measured them).
		missing=$(awk -F'\t' 'NR > 1 { print $5 "\t" $2 "\t100"; print $6 "\t" $2 "\t" $4 }' "$results" | sort -u |
			while IFS=$'\t' read -r id svc w; do [ -f "$(setdir "$id" "$svc" "$w")/.measured" ] || echo "$id"; done | tr '\n' ' ')
		if [ -n "$missing" ]; then
			echo "bench-gate MODE=sets REJUDGE=1: the runs of sets $missing are not in $OUT (measured on another machine?): nothing judged again" >&2
			exit 1
		fi
		# Into new files, moved over the old ones at the end: a kill
		# midway leaves the measurement as it was.
		old="$results" results="$OUT/results.rejudge" launches="$OUT/launches.rejudge"
		head -1 "$old" >"$results"
		head -1 "$OUT/launches.tsv" >"$launches"
		while IFS=$'\t' read -r n svc w sa sb load; do
			judge "$n" "$svc" "$w" "$load" "$sa" "$sb"
		done < <(awk -F'\t' 'NR > 1 && !seen[$1]++ { print $1 "\t" $2 "\t" $4 "\t" $5 "\t" $6 "\t" $7 }' "$old")
		mv "$launches" "$OUT/launches.tsv" && mv "$results" "$OUT/results.tsv"
		results="$OUT/results.tsv" launches="$OUT/launches.tsv"
		keep
	else
		# Comparisons judged already, per kind; each service's chain goes on
		# from its last same-build set while that set's runs are here.
		declare -A done_k=() seen_k=() prev=()
		while IFS=$'\t' read -r svc w; do done_k[$svc:$w]=$((${done_k[$svc:$w]:-0} + 1)); done < <(awk -F'\t' 'NR > 1 && !seen[$1]++ { print $2 "\t" $4 }' "$results")
		# The chain's A: the service's last same-build set as results.tsv
		# says (its last comparison's B when that was A/A, else its A), or a
		# baseline not yet compared (prev-SERVICE); not one measured over 45
		# minutes ago: compare widens the interval of sets taken more than
		# an hour apart, and the table is of one gate.
		for svc in $SERVICES; do
			p=$(awk -F'\t' -v s="$svc" 'NR > 1 && $2 == s { p = ($4 == 100 ? $6 : $5) } END { print p }' "$results")
			[ -n "$p" ] || p=$(cat "$OUT/prev-$svc" 2>/dev/null || true)
			d=$(setdir "${p:-0}" "$svc" 100)
			if [ -n "$p" ] && [ -f "$d/.measured" ] && [ -z "$(find "$d/.measured" -mmin +45)" ]; then prev[$svc]=$p; fi
		done
		n=$(awk -F'\t' 'NR > 1 { m = $1 } END { print m + 0 }' "$results")
		[ "$n" -gt 0 ] && echo "bench-gate MODE=sets: carrying on after $n of ${#order[@]} comparisons in $OUT" >&2
		for item in "${order[@]}"; do
			IFS=: read -r svc w <<<"$item"
			seen_k[$item]=$((${seen_k[$item]:-0} + 1))
			[ "${seen_k[$item]}" -le "${done_k[$item]:-0}" ] && continue
			if [ -n "${MAXTIME:-}" ] && [ $(($(date +%s) - start)) -ge "$MAXTIME" ]; then
				echo "bench-gate MODE=sets: MAXTIME ${MAXTIME}s reached before comparison $((n + 1)); RESUME=1 carries on" >&2
				break
			fi
			if [ -z "${prev[$svc]:-}" ]; then # the chain starts: a baseline set
				prev[$svc]=$(newset "$svc" 100)
				echo "${prev[$svc]}" >"$OUT/prev-$svc"
			fi
			load=$(cut -d' ' -f1 /proc/loadavg)
			sb=$(newset "$svc" "$w")
			n=$((n + 1))
			judge "$n" "$svc" "$w" "$load" "${prev[$svc]}" "$sb"
			if [ "$w" = 100 ]; then
				prev[$svc]=$sb
				echo "$sb" >"$OUT/prev-$svc"
			fi
		done
	fi
	echo
	echo "bench-gate MODE=sets: $(awk -F'\t' 'NR > 1 && !seen[$1]++ { c++ } END { print c + 0 }' "$results") of the ${#order[@]} comparisons planned measured (in $OUT); each a set of $kmax JVM launches (tuneloop run --start ... --repeat $kmax) against the service's previous same-build set, each K of $KS judged on the last K of A and the first K of B by compare --fail-on-regression $PCT over launches; runs of $DUR (+$WARM warm-up), $USERS users; judged by tuneloop $(cat "$OUT/build" 2>/dev/null || echo '?'); $(($(date +%s) - start)) s"
	echo "load average (1 min) at the start of each comparison's B set: $(awk -F'\t' 'NR > 1 && !seen[$1]++ { print $7 }' "$results" | sort -n | awk '{a[NR]=$1} END {printf "min %s, median %s, max %s", a[1], a[int((NR+1)/2)], a[NR]}')"
	# exit 3 rate with its exact (Clopper-Pearson) 95% interval, over all
	# comparisons and over those that share no set (every other one).
	# A comparison that ended in an error (exit 1, 2) is in no rate: its column says how many.
	# busy: comparisons where another process kept over 20% of the CPUs
	# busy during a judged launch (compare warns of each).
	printf '%-14s %3s %-22s %4s %-26s %-28s %7s %7s %7s %7s\n' service K kind n "exit 3 (95% CI)" "sharing no set: exit 3" "exit 4" "groups" "errors" "busy"
	for svc in $SERVICES; do for k in $KS; do for w in 100 $SLOW; do
		awk -F'\t' -v s="$svc" -v k="$k" -v w="$w" '
			function cdf(x, n, p,   i, t, lc) { if (p <= 0) return 1; if (p >= 1) return (x >= n); t = 0; lc = 0
				for (i = 0; i <= x; i++) { if (i > 0) lc += log(n - i + 1) - log(i); t += exp(lc + i * log(p) + (n - i) * log(1 - p)) } return t }
			function upper(x, n,   lo, hi, m, j) { if (x >= n) return 1; lo = x / n; hi = 1; for (j = 0; j < 60; j++) { m = (lo + hi) / 2; if (cdf(x, n, m) > 0.025) lo = m; else hi = m } return hi }
			function lower(x, n,   lo, hi, m, j) { if (x <= 0) return 0; lo = 0; hi = x / n; for (j = 0; j < 60; j++) { m = (lo + hi) / 2; if (1 - cdf(x - 1, n, m) < 0.025) lo = m; else hi = m } return lo }
			function rate(f, n) { return sprintf("%d/%d = %.1f%% [%.1f, %.1f]", f, n, 100 * f / n, 100 * lower(f, n), 100 * upper(f, n)) }
			NR > 1 && $2 == s && $3 == k && $4 == w && $8 != 0 && $8 != 3 && $8 != 4 { e++; next }
			NR > 1 && $2 == s && $3 == k && $4 == w { n++; if ($8 == 3) f++; if ($8 == 4) i++; if ($13 > 0) g++; if ($15 != "-" && $15 > 20) b++
				if (!used[$5] && !used[$6]) { dn++; if ($8 == 3) df++; used[$5] = used[$6] = 1 } }
			END { if (!n && !e) exit; if (!n) { printf "%-14s %3s %-22s %4d %-26s %-28s %7d %7d %7d %7d\n", s, k, w, 0, "-", "-", 0, 0, e, 0; exit }; kind = (w == 100 ? "A/A (false alarm)" : "+" (w - 100) "% work (power)")
				printf "%-14s %3s %-22s %4d %-26s %-28s %7d %7d %7d %7d\n", s, k, kind, n, rate(f, n), rate(df, dn), i, g, e, b }' "$results"
	done; done; done
	echo
	echo "every comparison ($results; every launch in $launches):"
	column -t -s$'\t' "$results"
	exit 0
fi
FOLLOW=${FOLLOW:-1} KMAX=${KMAX:-12} MODE=${MODE:-runs} WINDOW=${WINDOW:-1s} PAIRS=${PAIRS:-8}
AA=${AA:-28} POWER=${POWER:-14} K=${K:-3} DUR=${DUR:-2s} WARM=${WARM:-0.5s} USERS=${USERS:-4} PCT=${PCT:-5} UNITS=${UNITS:-2000}
OUT=${OUT:-out/bench-gate} DELAY=${DELAY:-}
rm -rf "$OUT" && mkdir -p "$OUT"
go build -o "$OUT/tuneloop" ./cmd/tuneloop
go build -o "$OUT/workserver" ./scripts/testdata/workserver
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
declare -A port=([A2]=28502 [B5]=28503 [B10]=28504)
serve() { # PORT PERCENT: a workserver doing PERCENT% of the base work
	if [ -n "$DELAY" ]; then
		local us=$((${DELAY%ms} * 1000 * $2 / 100))
		"$OUT/workserver" -addr "127.0.0.1:$1" -units 20 -delay "${us}us" &
	else
		"$OUT/workserver" -addr "127.0.0.1:$1" -units "$((UNITS * $2 / 100))" &
	fi
	pids+=($!)
}
serve 28501 100
serve 28502 100
serve 28503 105
serve 28504 110
sleep 1

# The order of the comparisons: A/A and the power kinds interleaved.
order=()
for ((r = 1; r <= AA || r <= 2 * POWER; r += 2)); do
	if [ "$r" -le "$AA" ]; then order+=(A2); fi
	if [ "$(((r + 1) / 2))" -le "$POWER" ]; then order+=(B5); fi
	if [ "$((r + 1))" -le "$AA" ]; then order+=(A2); fi
	if [ "$(((r + 1) / 2))" -le "$POWER" ]; then order+=(B10); fi
done

results="$OUT/results.tsv"
printf 'n\tkind\tloadavg\texit\tunpaired_exit\ttps_pct\ttps_ci95\ttps_ci99\tp99_pct\tp99_ci99\trecommended_k\tpairs\n' >"$results"
start=$(date +%s)
n=0
for kind in "${order[@]}"; do
	n=$((n + 1))
	dir="$OUT/$n-$kind"
	load=$(cut -d' ' -f1 /proc/loadavg)
	set +e
	if [ "$MODE" = windows ]; then
		w=${WINDOW%s}
		"$OUT/tuneloop" load http://127.0.0.1:28501/ --versus "http://127.0.0.1:${port[$kind]}/" -c "$USERS" --window "$WINDOW" \
			-d "$((2 * PAIRS * w))s" --warm-up 1s -q --fail-on-regression "$PCT" -o json >"$dir.json" 2>>"$OUT/runs.log"
		code=$? ucode=- pairs=$PAIRS
	else
	"$OUT/tuneloop" run --target http://127.0.0.1:28501/ --target-b "http://127.0.0.1:${port[$kind]}/" --repeat "$K" \
		-c "$USERS" -d "$DUR" --warm-up "$WARM" --no-catalog --no-gc-log --no-jfr -q \
		--fail-on-regression "$PCT" --out "$dir" >"$dir.txt" 2>>"$OUT/runs.log"
	code=$?
	"$OUT/tuneloop" compare --no-catalog --design paired --fail-on-regression "$PCT" -o json "$dir/a" -- "$dir/b" >"$dir.json" 2>>"$OUT/runs.log"
	pairs=$K sa=("$dir/a") sb=("$dir/b")
	if [ "$FOLLOW" = 1 ] && [ "$code" = 4 ]; then
		rec=$(jq -r --argjson k "$K" '[.stats[] | select(.key == "tps" or .key == "p99_ms") | .more_runs // 0] | max + $k' "$dir.json" 2>/dev/null || echo 0)
		if [ "$rec" -gt "$K" ] && [ "$rec" -le "$KMAX" ]; then
			more=$((rec - K < 2 ? 2 : rec - K))
			"$OUT/tuneloop" run --target http://127.0.0.1:28501/ --target-b "http://127.0.0.1:${port[$kind]}/" --repeat "$more" \
				-c "$USERS" -d "$DUR" --warm-up "$WARM" --no-catalog --no-gc-log --no-jfr -q --out "$dir/more" >/dev/null 2>>"$OUT/runs.log"
			sa+=("$dir/more/a") sb+=("$dir/more/b") pairs=$((K + more))
			"$OUT/tuneloop" compare --no-catalog --design paired --fail-on-regression "$PCT" -o json "${sa[@]}" -- "${sb[@]}" >"$dir.json" 2>>"$OUT/runs.log"
			code=$?
		fi
	fi
	"$OUT/tuneloop" compare --no-catalog --design unpaired --fail-on-regression "$PCT" -o json "${sa[@]}" -- "${sb[@]}" >"$dir-unpaired.json" 2>>"$OUT/runs.log"
	ucode=$?
	fi
	set -e
	line=$(jq -r --arg n "$n" --arg kind "$kind" --arg load "$load" --arg code "$code" --arg ucode "$ucode" --argjson k "$pairs" --argjson pairs "$pairs" '
		def s(k): (.stats[] | select(.key == k));
		def f: (. * 10 | round) / 10;
		[$n, $kind, $load, $code, $ucode,
		 (s("tps").change_pct | f), "[\(s("tps").ci_low_pct | f), \(s("tps").ci_high_pct | f)]",
		 "[\(s("tps").gate_ci_low_pct | f), \(s("tps").gate_ci_high_pct | f)]",
		 (s("p99_ms").change_pct | f), "[\(s("p99_ms").gate_ci_low_pct | f), \(s("p99_ms").gate_ci_high_pct | f)]",
		 ([s("tps").more_runs // 0, s("p99_ms").more_runs // 0] | max | if . >= 1000 then "1000+" else . + $k end), $pairs] | @tsv' "$dir.json" 2>/dev/null) || line=
	if [ -z "$line" ]; then
		line=$(printf '%s\t%s\t%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t%s' "$n" "$kind" "$load" "$code" "$ucode" "$pairs")
	fi
	echo "$line" >>"$results"
	echo "comparison $n/${#order[@]} ($kind): exit $code (unpaired $ucode) on $pairs pairs, load $load, $(($(date +%s) - start)) s" >&2
done

echo
if [ "$MODE" = windows ]; then
	echo "bench-gate MODE=windows: ${#order[@]} comparisons, each one load --versus of $PAIRS pairs of $WINDOW windows (throughput: paired t over the pairs; p99: each side's windows pooled, bootstrap over the pairs), $USERS users, work ${DELAY:-$UNITS units} per request, gate PCT=$PCT, $(($(date +%s) - start)) s"
else
	echo "bench-gate: ${#order[@]} comparisons of $K interleaved pairs (more, up to $KMAX, where the tool asked: FOLLOW=$FOLLOW), runs of $DUR (+$WARM warm-up), $USERS users, work ${DELAY:-$UNITS units} per request, gate PCT=$PCT, $(($(date +%s) - start)) s"
fi
echo "load average (1 min) at the start of each comparison: $(cut -f3 "$results" | tail -n +2 | sort -n | awk '{a[NR]=$1} END {printf "min %s, median %s, max %s", a[1], a[int((NR+1)/2)], a[NR]}')"
printf '%-24s %4s %18s %16s %14s %18s\n' "kind" "n" "paired: exit 3" "exit 4 (inc.)" "unpaired: 3" "unpaired: 4 (inc.)"
for kind in A2 B5 B10; do
	label=$(case $kind in A2) echo "A/A (false alarm)" ;; B5) echo "+5% work (detection)" ;; B10) echo "+10% work (detection)" ;; esac)
	awk -F'\t' -v k="$kind" -v label="$label" 'NR > 1 && $2 == k { n++; if ($4 == 3) f++; if ($4 == 4) i++; if ($5 == 3) uf++; if ($5 == 4) ui++ }
		END { printf "%-24s %4d %18s %16s %14s %18s\n", label, n, f+0 " (" (n ? int(100*f/n+0.5) : 0) "%)", i+0, uf+0 " (" (n ? int(100*uf/n+0.5) : 0) "%)", ui+0 }' "$results"
done
echo
echo "runs per side the tool recommends to detect ${PCT}% (median, by kind):"
for kind in A2 B5 B10; do
	awk -F'\t' -v k="$kind" 'NR > 1 && $2 == k && $11 != "-" { print ($11 == "1000+" ? 1000 : $11) }' "$results" | sort -n | awk -v k="$kind" '{a[NR]=$1} END { if (NR) printf "  %-4s median %s (min %s, max %s)\n", k, a[int((NR+1)/2)], a[1], a[NR] }'
done
echo
echo "every comparison ($results):"
column -t -s$'\t' "$results"
