#!/usr/bin/env bash
# analyze-snapshot.sh OUTDIR: runs `tuneloop analyze` over a spread of the
# repository's real inputs (thread dumps, GC logs of several collectors,
# logging configs, a JFR recording, collapsed stacks, a zip, a run folder,
# --cmdline, --fail-on, --max-input, an unreadable file) in every output
# format and both languages, and keeps each case's stdout, stderr, exit
# status and written files under OUTDIR. Two snapshots taken before and
# after a refactoring are compared with `diff -r A B`; the JSON's
# generated_at (the clock) is the only field normalised.
set -u
out=${1:?usage: analyze-snapshot.sh OUTDIR}
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/tuneloop
nice -n 15 go build -o "$bin" ./cmd/tuneloop || exit 1
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work" "$(dirname "$bin")"' EXIT

td=internal/jvm/threaddump/testdata
gc=internal/jvm/gclog/testdata
lc=internal/jvm/logconf/testdata
# Inputs made here: a zip of two dumps, an unreadable file, an empty file.
(cd "$td" && zip -q -j "$work/dumps.zip" jdk17_deadlock_jcmd.txt jdk17_wait_queue_series/dump1.txt)
printf 'x' >"$work/unreadable.txt" && chmod 000 "$work/unreadable.txt"
: >"$work/empty.txt"
mkdir -p tmp-snap && cp "$work/dumps.zip" "$work/empty.txt" tmp-snap/ && cp -p "$work/unreadable.txt" tmp-snap/ 2>/dev/null
trap 'rm -rf "$work" "$(dirname "$bin")" tmp-snap' EXIT

cases=(
  "dump1|$td/jdk17_deadlock_jcmd.txt"
  "dumpseries|$td/jdk17_wait_queue_series/dump1.txt $td/jdk17_wait_queue_series/dump2.txt $td/jdk17_wait_queue_series/dump3.txt"
  "dumpjson|$td/jdk25_virtual_threaddump.json"
  "javacore|$td/openj9_docs_deadlock_javacore.txt $td/samurai_hpux_hp.dmp"
  "sigquit|$td/jdk17_sigquit_prefixed.log $td/jdk17_visualvm_jmx.tdump"
  "gcg1|$gc/live/jdk17-g1.log"
  "gcmany|$gc/live/jdk25-zgc.log $gc/live/jdk17-shenandoah.log $gc/live/jdk25-parallel.log"
  "gcjdk8|$gc/corpus/openjdk_SampleSun1_8_0CmsPrintGcId.txt"
  "gcj9|$gc/openj9/SampleIBMJ9_R26_GAFP1_full_header.txt"
  "gcjrockit|$gc/jrockit/SampleJRockit1_4_2gencon.txt"
  "logconf|$lc/logback-spring.xml $lc/log4j2-location.xml $lc/logback-sift.xml"
  "logconfcmd|$lc/log4j2-asyncroot.xml --cmdline=java -Xmx2g -DLog4jContextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector -jar a.jar"
  "cmdline|--cmdline=java -Xms2g -Xmx8g -XX:+UseParallelGC -jar app.jar"
  "cmdlinejdk|--cmdline=java -Xmx4g -jar app.jar --jdk=8 --profile=latency"
  "mixed|$gc/live/jdk17-g1.log $td/jdk17_zoo_fsync_jcmd.txt $lc/logback-spring.xml"
  "jfr|internal/cli/testdata/profiles/mixed.jfr"
  "jfrlock|internal/cli/testdata/profiles/mixed.jfr --profile=lock"
  "collapsed|internal/stacks/testdata/asprof-pool.collapsed"
  "zip|tmp-snap/dumps.zip"
  "rundir|internal/verdict/testdata/runs/sync-logging"
  "failonw|$td/jdk17_deadlock_jcmd.txt --fail-on=warning"
  "failonc|$lc/logback-spring.xml --fail-on=critical"
  "maxinput|$gc/live/jdk17-g1.log $td/jdk17_deadlock_jcmd.txt --max-input=20K"
  "unreadable|tmp-snap/unreadable.txt tmp-snap/empty.txt $td/jdk17_deadlock_jcmd.txt"
  "allbad|tmp-snap/empty.txt internal/cli"
  "forced|$td/jdk17_deadlock_jcmd.txt --format=gclog"
  "badformat|$td/jdk17_deadlock_jcmd.txt --format=nope"
  "nothing|"
)
for c in "${cases[@]}"; do
  name=${c%%|*}
  IFS=' ' read -r -a raw <<<"${c#*|}"
  # Arguments: "--flag=a b c" keeps its spaces (the --cmdline case).
  args=() cur=""
  for a in "${raw[@]}"; do
    if [[ $a == --* || -z $cur ]]; then [[ -n $cur ]] && args+=("$cur"); cur=$a
    elif [[ $cur == --cmdline=* ]]; then cur="$cur $a"
    else args+=("$cur"); cur=$a; fi
  done
  [[ -n $cur ]] && args+=("$cur")
  for lang in en zh; do
    for fmt in text json markdown html; do
      d="$out/$name.$lang.$fmt"
      mkdir -p "$d"
      extra=()
      if [[ $fmt == html ]]; then extra=(--out "$d/page.html"); fi
      if [[ $name == jfr* || $name == collapsed ]]; then extra+=(--collapsed "$d/p.collapsed" --pprof "$d/p.pb.gz"); fi
      "$bin" analyze "${args[@]}" -o "$fmt" --lang "$lang" "${extra[@]}" </dev/null >"$d/stdout" 2>"$d/stderr"
      echo $? >"$d/rc"
      sed -i -E 's/"generated_at": "[^"]*"/"generated_at": "X"/' "$d/stdout"
      grep -rlI -- "$out" "$d" | xargs -r sed -i "s#$out#OUT#g"
    done
  done
done
# stdin, once
"$bin" analyze - -o text <"$td/jdk17_deadlock_jcmd.txt" >"$out/stdin.stdout" 2>&1; echo $? >>"$out/stdin.stdout"
echo "snapshot: $out ($(find "$out" -type f | wc -l) files)"
