#!/bin/sh
# Regenerates the catalogue's CPU and I/O fixtures in ../ from CpuKinds.java:
# for each mode, three JDK 17 dumps 0.5 s apart in one file
# (../jdk17_cpu_MODE_jcmd.txt), `jcmd PID Thread.print -l -e`.
# Usage: sh gen_cpukinds.sh [MODE...]   (JDK 17 on PATH)
set -eu
cd "$(dirname "$0")"
OUT=..
for mode in ${*:-format regex compile hashing crypto compression serialization exceptions reflection xml random synccoll jul fsync console dns}; do
  LOG=$(mktemp)
  java CpuKinds.java "$mode" 120 >"$LOG" 2>&1 &
  JPID=$!
  i=0
  until grep -q READY "$LOG"; do
    i=$((i+1)); [ $i -gt 600 ] && { echo "timeout $mode" >&2; cat "$LOG" >&2; kill "$JPID"; exit 1; }
    sleep 0.1
  done
  PID=$(sed -n 's/^READY //p' "$LOG")
  : >"$OUT/jdk17_cpu_${mode}_jcmd.txt"
  for n in 1 2 3; do
    # an attach can time out on a busy machine: one retry
    jcmd "$PID" Thread.print -l -e >>"$OUT/jdk17_cpu_${mode}_jcmd.txt" || { sleep 1; jcmd "$PID" Thread.print -l -e >>"$OUT/jdk17_cpu_${mode}_jcmd.txt"; }
    [ $n -lt 3 ] && sleep 0.5
  done
  kill "$JPID" 2>/dev/null || true; wait "$JPID" 2>/dev/null || true; rm -f "$LOG"
  echo "done $mode"
done
rm -f "${TMPDIR:-/tmp}"/cpukinds-*
