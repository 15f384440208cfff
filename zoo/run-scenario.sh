#!/usr/bin/env bash
# Start one zoo scenario in the background, wait until GET /health answers, print its PID.
#
#   zoo/run-scenario.sh SCENARIO [--fixed] [more zoo flags...]
#   PID=$(zoo/run-scenario.sh sync-logging --port 8080) && ... && kill "$PID"
#
# Environment:
#   ZOO_PORT        port (default 8080; a --port flag wins)
#   ZOO_JAR         the jar (default: zoo/target/zoo.jar next to this script)
#   JAVA            java binary (default: java on PATH, or $JAVA_HOME/bin/java)
#   JAVA_OPTS       JVM options; default per scenario (gc-pressure: -Xmx64m -Xms64m + GC log)
#   ZOO_LOG_DIR     --log-dir of the service and where its stdout goes (default /tmp/zoo-logs)
#   ZOO_WAIT        seconds to wait for /health (default 60)
# startup-deadlock (without --fixed) never becomes healthy, by design: the script waits until the
# service says it is starting (the deadlock forms at once), prints the PID and exits 0.
# Only the PID is printed on stdout; the service's stdout/stderr go to
# $ZOO_LOG_DIR/zoo-SCENARIO[-fixed]-PORT.out. Stop it with `kill PID` (or GET /stop).
set -euo pipefail

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
scenario=$1
shift

here=$(cd "$(dirname "$0")" && pwd)
jar=${ZOO_JAR:-$here/target/zoo.jar}
if [ -z "${JAVA:-}" ]; then
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then JAVA=$JAVA_HOME/bin/java; else JAVA=java; fi
fi
port=${ZOO_PORT:-8080}
fixed=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --port=*) port=${1#--port=}; shift ;;
    --fixed) fixed="-fixed"; args+=("$1"); shift ;;
    *) args+=("$1"); shift ;;
  esac
done
logdir=${ZOO_LOG_DIR:-/tmp/zoo-logs}
mkdir -p "$logdir"

if [ ! -f "$jar" ]; then
  echo "run-scenario: $jar not found: build it with 'make zoo'" >&2
  exit 1
fi

if [ -z "${JAVA_OPTS+x}" ]; then
  case "$scenario" in
    gc-pressure) JAVA_OPTS="-Xmx64m -Xms64m -Xlog:gc*:file=$logdir/gc-$scenario$fixed-$port.log:time,uptime,level,tags" ;;
    *) JAVA_OPTS="" ;;
  esac
fi

if curl -s -o /dev/null -m 2 "http://127.0.0.1:$port/" 2>/dev/null; then
  echo "run-scenario: something already answers on 127.0.0.1:$port; stop it or set ZOO_PORT" >&2
  exit 1
fi

out="$logdir/zoo-$scenario$fixed-$port.out"
# shellcheck disable=SC2086 # JAVA_OPTS is a list of words on purpose
nohup "$JAVA" $JAVA_OPTS -jar "$jar" --scenario "$scenario" --port "$port" --log-dir "$logdir" ${args[@]+"${args[@]}"} \
  >"$out" 2>&1 </dev/null &
pid=$!

wait_s=${ZOO_WAIT:-60}
deadline=$(( $(date +%s) + wait_s ))
while :; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "run-scenario: $scenario exited early; last lines of $out:" >&2
    tail -n 20 "$out" >&2
    exit 1
  fi
  if [ "$scenario" = startup-deadlock ] && [ -z "$fixed" ] && grep -q "zoo: start-up:" "$out" 2>/dev/null; then
    sleep 1
    echo "run-scenario: startup-deadlock is deadlocked at start-up by design (no /health); pid $pid" >&2
    break
  fi
  # Ready when /health answers and /info reports our PID (not another service on the port).
  if curl -fsS -m 2 "http://127.0.0.1:$port/health" >/dev/null 2>&1 &&
     curl -fsS -m 2 "http://127.0.0.1:$port/info" 2>/dev/null | grep -q "\"pid\":$pid[,}]"; then
    break
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "run-scenario: $scenario not healthy after ${wait_s}s; stopping pid $pid; see $out" >&2
    kill "$pid" 2>/dev/null || true
    exit 1
  fi
  sleep 0.2
done
echo "$pid"
