#!/bin/sh
# Regenerates the wait-kind fixtures in ../ from WaitKinds.java: for each mode,
# three JDK 17 dumps 1.5 s apart (../jdk17_wait_MODE_series/dump1..3.txt) and
# one JDK 25 dump (../jdk25_wait_MODE_jcmd.txt), all `jcmd PID Thread.print -l -e`.
# Usage: sh gen_waitkinds.sh [MODE...]   (JDK 17 on PATH, Temurin 25 at $JDK25)
set -eu
cd "$(dirname "$0")"
OUT=..
JDK25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}

start() { # MODE JAVA
  LOG=$(mktemp)
  "$2" WaitKinds.java "$1" 60 >"$LOG" 2>&1 &
  JPID=$!
  i=0
  until grep -q READY "$LOG"; do
    i=$((i+1)); [ $i -gt 600 ] && { echo "timeout $1" >&2; cat "$LOG" >&2; exit 1; }
    sleep 0.1
  done
  PID=$(sed -n 's/^READY //p' "$LOG")
}
stop() { kill "$JPID" 2>/dev/null || true; wait "$JPID" 2>/dev/null || true; rm -f "$LOG"; }

for mode in ${*:-idle executor permits queue handoff downstream}; do
  start "$mode" java
  mkdir -p "$OUT/jdk17_wait_${mode}_series"
  for n in 1 2 3; do
    jcmd "$PID" Thread.print -l -e >"$OUT/jdk17_wait_${mode}_series/dump$n.txt"
    [ $n -lt 3 ] && sleep 1.5
  done
  stop
  start "$mode" "$JDK25/bin/java"
  "$JDK25/bin/jcmd" "$PID" Thread.print -l -e >"$OUT/jdk25_wait_${mode}_jcmd.txt"
  stop
  echo "done $mode"
done
