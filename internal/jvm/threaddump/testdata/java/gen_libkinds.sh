#!/bin/sh
# Regenerates the catalogue's library fixtures in ../ from LibKinds.java with
# the real libraries' jars from the local Maven repository (the versions
# below): for each mode, three JDK 17 dumps 0.5 s apart in one file
# (../jdk17_libk_MODE_jcmd.txt), `jcmd PID Thread.print -l -e`.
# Usage: sh gen_libkinds.sh [MODE...]   (JDK 17 on PATH, M2 = ~/.m2/repository)
set -eu
cd "$(dirname "$0")"
OUT=..
M2=${M2:-$HOME/.m2/repository}
CP=$M2/org/apache/httpcomponents/httpclient/4.5.14/httpclient-4.5.14.jar
CP=$CP:$M2/org/apache/httpcomponents/httpcore/4.4.16/httpcore-4.4.16.jar
CP=$CP:$M2/commons-logging/commons-logging/1.3.5/commons-logging-1.3.5.jar
CP=$CP:$M2/commons-codec/commons-codec/1.17.1/commons-codec-1.17.1.jar
CP=$CP:$M2/org/apache/httpcomponents/client5/httpclient5/5.5.1/httpclient5-5.5.1.jar
CP=$CP:$M2/org/apache/httpcomponents/core5/httpcore5/5.3.6/httpcore5-5.3.6.jar
CP=$CP:$M2/org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar
CP=$CP:$M2/com/fasterxml/jackson/core/jackson-databind/2.19.2/jackson-databind-2.19.2.jar
CP=$CP:$M2/com/fasterxml/jackson/core/jackson-core/2.19.2/jackson-core-2.19.2.jar
CP=$CP:$M2/com/fasterxml/jackson/core/jackson-annotations/2.19.2/jackson-annotations-2.19.2.jar
CP=$CP:$M2/io/projectreactor/reactor-core/3.5.20/reactor-core-3.5.20.jar
CP=$CP:$M2/org/reactivestreams/reactive-streams/1.0.4/reactive-streams-1.0.4.jar
# logback (and the SLF4J 2 API it needs) only for callerdata: with it on the
# class path the HTTP clients would log at DEBUG.
LB=$M2/ch/qos/logback/logback-classic/1.5.38/logback-classic-1.5.38.jar
LB=$LB:$M2/ch/qos/logback/logback-core/1.5.38/logback-core-1.5.38.jar
LB=$LB:$M2/org/slf4j/slf4j-api/2.0.17/slf4j-api-2.0.17.jar
for jar in $(echo "$CP:$LB" | tr ':' ' '); do
  [ -f "$jar" ] || { echo "missing $jar" >&2; exit 1; }
done
for mode in ${*:-httpclient4 httpclient5 jackson reactor callerdata}; do
  LOG=$(mktemp)
  cp=$CP
  [ "$mode" = callerdata ] && cp=$(echo "$CP" | sed 's|[^:]*slf4j-api-1.7.36.jar|'"$LB"'|')
  java -cp "$cp" LibKinds.java "$mode" 120 >"$LOG" 2>&1 &
  JPID=$!
  i=0
  until grep -q READY "$LOG"; do
    i=$((i+1)); [ $i -gt 900 ] && { echo "timeout $mode" >&2; cat "$LOG" >&2; kill "$JPID"; exit 1; }
    sleep 0.1
  done
  PID=$(sed -n 's/^READY //p' "$LOG")
  : >"$OUT/jdk17_libk_${mode}_jcmd.txt"
  for n in 1 2 3; do
    # an attach can time out on a busy machine: one retry
    jcmd "$PID" Thread.print -l -e >>"$OUT/jdk17_libk_${mode}_jcmd.txt" || { sleep 1; jcmd "$PID" Thread.print -l -e >>"$OUT/jdk17_libk_${mode}_jcmd.txt"; }
    [ $n -lt 3 ] && sleep 0.5
  done
  kill "$JPID" 2>/dev/null || true; wait "$JPID" 2>/dev/null || true
  grep -v '^READY' "$LOG" | head -5 >&2 || true
  rm -f "$LOG"
  echo "done $mode"
done
rm -f "${TMPDIR:-/tmp}"/libkinds-*
