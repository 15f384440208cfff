#!/usr/bin/env bash
# Take the real-library thread dumps that the fingerprint tests read
# (internal/jvm/threaddump/libs_test.go): for each case of com.example.zoo.Fingerprints,
# with JDK 17 and JDK 25, start it, wait for READY, `jcmd PID Thread.print -l -e`, stop it.
#
#   make zoo && zoo/fingerprints.sh [CASE...]
#
# Environment:
#   JAVA17_HOME  JDK 17 (default: the java on PATH, whose jcmd must sit next to it)
#   JAVA25_HOME  JDK 25 (default /usr/lib/jvm/temurin-25-jdk-amd64)
#   OUT          where the dumps go (default internal/jvm/threaddump/testdata)
#   MIN_STUCK    workers (of 24) that must be BLOCKED or WAITING in a kept dump (default 20)
# Files: $OUT/jdk17_lib_CASE_jcmd.txt and $OUT/jdk25_lib_CASE_jcmd.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
jar=$here/target/zoo.jar
out=${OUT:-$(cd "$here/../internal/jvm/threaddump/testdata" && pwd)}
j17=${JAVA17_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
j25=${JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  cases=(druid dbcp c3p0 hikari log4j2-async log4j2-asyncroot logback-async logback-sift securerandom classloading classloading-direct)
fi
[ -f "$jar" ] || { echo "no $jar: run make zoo" >&2; exit 1; }

# stuck FILE: how many workers (http-nio-8080-exec-N, plugin-loader-N) are BLOCKED or WAITING.
stuck() {
  awk '/^"(http-nio-8080-exec|plugin-loader)-/ { w = 1; next }
       w && /java.lang.Thread.State:/ { if ($2 != "RUNNABLE") n++; w = 0 }
       END { print n + 0 }' "$1"
}

pid=""
log=$(mktemp)
# The logging cases' pipes and configuration files; the JVMs are SIGKILLed, so removed here.
tmp=$(mktemp -d)
cleanup() { if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; rm -rf "$log" "$tmp"; }
trap cleanup EXIT

for c in "${cases[@]}"; do
  for v in 17 25; do
    home=$j17
    [ "$v" = 25 ] && home=$j25
    # 90 s at most: the program halts by itself even if this script dies.
    "$home/bin/java" -Djava.io.tmpdir="$tmp" -cp "$jar" com.example.zoo.Fingerprints "$c" 90 >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 600); do
      grep -q '^READY ' "$log" && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if ! grep -q '^READY ' "$log"; then
      echo "FAIL $c (JDK $v): no READY" >&2; cat "$log" >&2; exit 1
    fi
    jpid=$(sed -n 's/^READY //p' "$log")
    f=$out/jdk${v}_lib_${c}_jcmd.txt
    # Retaken until at least $MIN_STUCK of the 24 workers are off-CPU: a logging queue drains
    # in batches, and a dump can catch the callers in the short burst after one (seen with
    # two CPUs). jcmd itself is retried too: the attach listener can be slow under that load.
    ok=""
    for _ in 1 2 3 4 5 6 7 8; do
      if "$home/bin/jcmd" "$jpid" Thread.print -l -e >"$f" 2>/dev/null &&
        [ "$(stuck "$f")" -ge "${MIN_STUCK:-20}" ]; then ok=1; break; fi
      sleep 1
    done
    [ -n "$ok" ] || { echo "FAIL $c (JDK $v): no dump with ${MIN_STUCK:-20} workers off-CPU" >&2; exit 1; }
    echo "$f"
    # SIGKILL: a logger's shutdown hook would flush into the blocked pipe until the halt.
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=""
  done
done
