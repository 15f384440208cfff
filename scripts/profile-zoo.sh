#!/usr/bin/env bash
# profile-zoo.sh: issue 15's "the four profile kinds work on every zoo
# scenario", shown. For each zoo scenario (all of `java -jar zoo.jar --list`,
# or those given), start it, load it on 127.0.0.1 and record
# `tuneloop jvm PID --profile KIND -d SECONDS` for KIND in cpu alloc lock
# wall, one after the other under the same load; print each profile's top
# frames by self value and the application frames nearest the leaf (not the
# JDK, not the server or a library: where the application's own code spends
# it), then a summary table. Not in CI: about a minute per scenario.
#
#   scripts/profile-zoo.sh [SCENARIO...]
#
# Environment: TUNELOOP (bin/tuneloop), ZOO_PORT (28190), SECONDS_PER (6, each
# profile), USERS (32, closed-model users of the load), KINDS ("cpu alloc
# lock wall"), TOP (5), OUT (out; the profiles go to $OUT/profile-zoo/SCENARIO/KIND).
# Needs bin/tuneloop (make build), zoo/target/zoo.jar (make zoo) and jq.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bin=${TUNELOOP:-bin/tuneloop}
jar=zoo/target/zoo.jar
port=${ZOO_PORT:-28190}
secs=${SECONDS_PER:-6}
users=${USERS:-32}
kinds=${KINDS:-cpu alloc lock wall}
top=${TOP:-5}
out=${OUT:-out}/profile-zoo
[ -x "$bin" ] || { echo "profile-zoo: $bin missing: run make build" >&2; exit 1; }
[ -f "$jar" ] || { echo "profile-zoo: $jar missing: run make zoo" >&2; exit 1; }
command -v jq >/dev/null || { echo "profile-zoo: jq not found (apt-get install -y jq)" >&2; exit 1; }

scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
	mapfile -t scenarios < <(java -jar "$jar" --list)
fi
rm -rf "$out" && mkdir -p "$out"

pid="" lpid=""
cleanup() {
	[ -z "$lpid" ] || kill "$lpid" 2>/dev/null || true
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
}
trap cleanup EXIT

# appframes KIND FILE: the application frames nearest the leaf of each stack
# of a collapsed file, by value (an allocation stack's leaf is the type,
# skipped), as "PCT% FRAME".
appframes() {
	awk -v kind="$1" -v top="$top" '
		{
			v = $NF; st = substr($0, 1, length($0) - length(v) - 1)
			n = split(st, f, ";"); total += v
			for (i = n - (kind == "alloc" ? 1 : 0); i >= 1; i--) {
				if (f[i] ~ /^\[/ || f[i] ~ /^(java|javax|jdk|sun|com\.sun)\./) continue
				if (f[i] ~ /^(org\.apache|ch\.qos\.logback|org\.slf4j|com\.zaxxer|org\.h2|com\.lmax)\./) continue
				app[f[i]] += v; break
			}
		}
		END { for (k in app) printf "%.1f%%\t%s\n", 100 * app[k] / (total ? total : 1), k }' "$2" | sort -t% -k1,1 -gr | head -n "$top"
}

summary=()
for s in "${scenarios[@]}"; do
	echo "== $s"
	mkdir -p "$out/$s"
	pid=$(ZOO_PORT=$port ZOO_LOG_DIR="$out/$s/logs" zoo/run-scenario.sh "$s") || { echo "   did not start (see $out/$s/logs)"; summary+=("$s - - - did-not-start"); continue; }
	url=http://127.0.0.1:$port/api
	# JIT warm-up (a service that never answers, startup-deadlock, only waits).
	"$bin" load "$url" -c "$users" -d 3s -o json >/dev/null 2>&1 || true
	for k in $kinds; do
		d="$out/$s/$k"
		"$bin" load "$url" -c "$users" -d "$((secs + 30))s" -o json >"$d.load.json" 2>/dev/null &
		lpid=$!
		sleep 1
		if "$bin" jvm "$pid" --profile "$k" -d "${secs}s" --out "$d" -o json >"$d.json" 2>"$d.err"; then ok=1; else ok=0; fi
		kill -INT "$lpid" 2>/dev/null || true
		wait "$lpid" 2>/dev/null || true
		lpid=""
		tps=$(jq -r '.tps // empty | floor' "$d.load.json" 2>/dev/null || true)
		if [ "$ok" = 0 ]; then
			echo "-- $s $k: FAILED: $(head -c 300 "$d.err")"
			summary+=("$s $k - - FAILED")
			continue
		fi
		jq -r --arg tps "${tps:-?}" '"-- \(.target) \(.kind): \(.events) events, total \(.total) \(.unit), load \($tps) TPS" ,
			(.notes // [] | .[] | "   note: \(.en)")' "$d.json"
		echo "   top frames by self:"
		jq -r --argjson n "$top" '. as $p | .by_self // [] | .[:$n][] |
			"     \(if $p.total > 0 then (.self * 1000 / $p.total | round) / 10 else 0 end)%\t\(.frame)"' "$d.json"
		echo "   application frames nearest the leaf:"
		appframes "$k" "$d/profile.collapsed" | sed 's/^/     /'
		first=$(appframes "$k" "$d/profile.collapsed" | head -n 1 | tr '\t' ' ')
		summary+=("$s $k $(jq -r '.events' "$d.json") ${tps:-?} ${first:-none}")
	done
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	pid=""
done

echo
echo "== summary: scenario kind events load-TPS top-application-frame"
printf '%s\n' "${summary[@]}" | column -t -l 5 2>/dev/null || printf '%s\n' "${summary[@]}"
echo "profiles (profile.html, profile.collapsed, profile.pb.gz, recording.jfr): $out/SCENARIO/KIND/"
