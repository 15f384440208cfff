#!/bin/sh
# Regenerates the live-JVM fixtures in ../ from the programs in this folder.
# Usage: sh gen.sh   (needs JDK 17 on PATH and Temurin 25 at $JDK25)
set -eu
cd "$(dirname "$0")"
OUT=..
JDK25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}

# src PROG: the source file of PROG (packaged ones live under their package path,
# which single-file source launch requires).
src() {
  case $1 in
    LogbackLike) echo ch/qos/logback/core/LogbackLike.java ;;
    Log4j2Like) echo org/apache/logging/log4j/core/appender/Log4j2Like.java ;;
    Log4j1Like) echo org/apache/log4j/Log4j1Like.java ;;
    *) echo "$1.java" ;;
  esac
}

# start PROG JAVA: launches `JAVA PROG.java`, waits for READY, sets PID and LOG.
start() {
  LOG=$(mktemp)
  "$2" "$(src $1)" 60 >"$LOG" 2>&1 &
  JPID=$!
  i=0
  until grep -q READY "$LOG"; do
    i=$((i+1)); [ $i -gt 300 ] && { echo "timeout $1" >&2; cat "$LOG" >&2; exit 1; }
    sleep 0.1
  done
  PID=$(sed -n 's/^READY //p' "$LOG")
}
stop() { kill "$JPID" 2>/dev/null || true; wait "$JPID" 2>/dev/null || true; rm -f "$LOG"; }

for prog in ${PROGS:-Contention Deadlock LogbackLike Log4j2Like Log4j1Like IOUnderLock}; do
  lc=$(echo $prog | tr 'A-Z' 'a-z')
  start $prog java
  jcmd "$PID" Thread.print -l -e >"$OUT/jdk17_${lc}_jcmd.txt"
  stop
  start $prog "$JDK25/bin/java"
  "$JDK25/bin/jcmd" "$PID" Thread.print -l -e >"$OUT/jdk25_${lc}_jcmd.txt"
  stop
done

# jstack -l on JDK 17 (no jcmd "<pid>:" line, no -e fields).
start Deadlock java
jstack -l "$PID" >"$OUT/jdk17_deadlock_jstack.txt"
stop

# SIGQUIT into stdout captured by an app server that prefixes every line
# (JBoss/WildFly style), two dumps a second apart with app lines around them.
start Contention java
kill -3 "$PID"; sleep 1; kill -3 "$PID"; sleep 1
awk '{ printf "2026-11-21 23:59:%02d,%03d INFO  [stdout] (Thread-1) %s\n", int(NR/400), NR%1000, $0 }' "$LOG" >"$OUT/jdk17_sigquit_prefixed.log"
stop

# JDK 25 JSON thread dump with virtual threads.
start Contention "$JDK25/bin/java"
rm -f /tmp/td_contention.json
"$JDK25/bin/jcmd" "$PID" Thread.dump_to_file -format=json /tmp/td_contention.json >/dev/null
mv /tmp/td_contention.json "$OUT/jdk25_contention_threaddump.json"
stop
echo done

# JDK 25 virtual threads: carriers in Thread.print, VTs in the JSON dump.
start VirtualBusy "$JDK25/bin/java"
"$JDK25/bin/jcmd" "$PID" Thread.print -l -e >"$OUT/jdk25_virtual_jcmd.txt"
rm -f /tmp/td_virtual.json
"$JDK25/bin/jcmd" "$PID" Thread.dump_to_file -format=json /tmp/td_virtual.json >/dev/null
mv /tmp/td_virtual.json "$OUT/jdk25_virtual_threaddump.json"
rm -f /tmp/td_virtual.txt
"$JDK25/bin/jcmd" "$PID" Thread.dump_to_file /tmp/td_virtual.txt >/dev/null
mv /tmp/td_virtual.txt "$OUT/jdk25_virtual_threaddump_plain.txt"
stop
echo done virtual

# ThreadInfo.toString() as applications log it (ThreadMXBean.dumpAllThreads).
java ThreadInfoDump.java >"$OUT/jdk17_threadinfo_tostring.txt"
"$JDK25/bin/java" ThreadInfoDump.java >"$OUT/jdk25_threadinfo_tostring.txt"
echo done threadinfo
