#!/usr/bin/env bash
# Every reader of `tuneloop analyze` on big inputs: peak RSS and seconds to
# the answer (/usr/bin/time -v), and seconds from SIGTERM to exit for a read
# stopped after DELAY s. Inputs are made in a temporary folder (sparse where
# they can be) and deleted at the end. SIZE_MB sets the size (default 2048).
# Usage: scripts/bench-bigfiles.sh [tuneloop binary]
set -euo pipefail
BIN=${1:-./tuneloop}
SIZE_MB=${SIZE_MB:-2048}
DELAY=${DELAY:-5}
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)"; exit 2; }
dir=$(mktemp -d /tmp/tuneloop-bigfiles.XXXXXX)
trap 'rm -rf "$dir"' EXIT
bytes=$((SIZE_MB * 1024 * 1024 - 65536)) # under --max-input's default 2 GiB

# Each generator writes $bytes of one format to its file.
repeat() { # file, text: text repeated to the size
	python3 -c "
import sys
t=sys.argv[2]; n=int(sys.argv[3]); f=open(sys.argv[1],'w'); w=0
while w<n: f.write(t); w+=len(t)" "$1" "$2" "$bytes"
}
printf 'FLR\0\0\2\0\0' > "$dir/magic.jfr"; truncate -s "$bytes" "$dir/magic.jfr"
truncate -s "$bytes" "$dir/zeros.bin"
head -c $((64 << 20)) /dev/urandom > "$dir/random.bin"
repeat "$dir/gc.log" "2026-11-28T07:00:00.000+0000: 1.000: [GC (Allocation Failure) [PSYoungGen: 1000K->100K(2000K)] 3000K->2100K(9000K), 0.0010000 secs] [Times: user=0.00 sys=0.00, real=0.00 secs]
"
python3 - "$dir/dumps.txt" "$bytes" <<'PY'
import sys, datetime
n=int(sys.argv[2]); f=open(sys.argv[1],'w'); w=0; i=0; t=datetime.datetime(2026,1,1)
while w<n:
    s=(t+datetime.timedelta(seconds=i)).strftime('%Y-%m-%d %H:%M:%S')+'\nFull thread dump OpenJDK 64-Bit Server VM (17 mixed mode):\n\n'
    s+=''.join('"w-%d" #%d prio=5 tid=0x%x nid=0x%x waiting on condition\n   java.lang.Thread.State: TIMED_WAITING (sleeping)\n\tat java.lang.Thread.sleep(Native Method)\n\n'%(k,k+1,k+1,k+1) for k in range(20))
    s+='JNI global refs: 1, weak refs: 0\n\n'
    f.write(s); w+=len(s); i+=1
PY
python3 - "$dir/onedump.txt" "$bytes" <<'PY'
import sys
n=int(sys.argv[2]); f=open(sys.argv[1],'w'); w=0; i=0
f.write('2026-11-28 07:00:00\nFull thread dump OpenJDK 64-Bit Server VM (17 mixed mode):\n\n')
while w<n:
    s='"w-%d" #%d prio=5 tid=0x%x nid=0x%x runnable\n   java.lang.Thread.State: RUNNABLE\n\tat a.B.c(B.java:1)\n\n'%(i,i+1,i+1,i+1)
    f.write(s); w+=len(s); i+=1
PY
python3 - "$dir/dump.json" "$bytes" <<'PY'
import sys
n=int(sys.argv[2]); f=open(sys.argv[1],'w'); w=0; i=0
f.write('{"threadDump": {"processId": "1", "time": "2026-11-28T07:00:00Z", "runtimeVersion": "25", "threadContainers": [{"container": "<root>", "threads": [')
while w<n:
    s=(',\n' if i else '')+'{"tid": "%d", "name": "v-%d", "state": "RUNNABLE", "stack": ["a.B.c(B.java:1)"]}'%(i,i)
    f.write(s); w+=len(s); i+=1
f.write(']}]}}\n')
PY
repeat "$dir/stacks.collapsed" "java/lang/Thread.run;a/B.c;a/B.d 1
"

run() { # label, args...: peak RSS, wall time and exit status of a whole read
	local label=$1; shift
	local rc=0
	/usr/bin/time -f '%M %e' -o "$dir/time" "$BIN" analyze "$@" >/dev/null 2>"$dir/err" || rc=$?
	read -r kb secs < <(tail -1 "$dir/time")
	# stopped: SIGTERM after DELAY s (or at once if it already ended)
	"$BIN" analyze "$@" >/dev/null 2>&1 & local pid=$!
	sleep "$DELAY"
	local t0 t1 stop="ended"
	t0=$(date +%s.%N)
	if kill -TERM "$pid" 2>/dev/null; then wait "$pid" || true; t1=$(date +%s.%N); stop=$(echo "$t1 - $t0" | bc); else wait "$pid" || true; fi
	printf '%-32s rss %6d MB  %7.1f s  exit %d  SIGTERM->exit %s\n' "$label" $((kb / 1024)) "$secs" "$rc" "$stop"
}
echo "inputs of $SIZE_MB MB ($(nproc) CPUs); SIGTERM after ${DELAY}s"
run "jfr: sparse, JFR magic" "$dir/magic.jfr"
run "jfr: zeros as --format jfr" --format jfr "$dir/zeros.bin"
run "collapsed: random bytes" --format collapsed "$dir/random.bin"
run "collapsed: real lines" "$dir/stacks.collapsed"
run "gclog: JDK 8 Parallel" "$dir/gc.log"
run "threaddump: many dumps" "$dir/dumps.txt"
run "threaddump: one huge dump" "$dir/onedump.txt"
run "threaddump: JSON" "$dir/dump.json"
for f in hotspot visualvm hpux javacore gclog logconf; do
	run "zeros as --format $f" --format "$f" "$dir/zeros.bin"
done
