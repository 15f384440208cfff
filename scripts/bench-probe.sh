#!/usr/bin/env bash
# bench-probe.sh: tuneloop probe against the tools it stands in for, on this
# machine, in one interleaved run: qperf (TCP/UDP latency and bandwidth at
# message sizes 1 B, 64 B, 1 KiB, 64 KiB over loopback), iperf3 (TCP
# bandwidth, 64 KiB writes), sysbench memory (single-thread read bandwidth
# over a buffer past the last-level cache) and fio (4 KiB write + fdatasync
# latency, appending and overwriting, 1 MiB sequential and 4 KiB random QD1
# I/O with O_DIRECT) on DIR.
# Round r runs tuneloop then the anchors, round r+1 the anchors first, so a
# neighbour's burst hits both sides alike. Every round's numbers are printed,
# then per figure the medians, the ratio tuneloop/anchor, and each side's
# own run-to-run spread ((max-min)/median over the rounds): a ratio whose
# distance from 1 is within the larger spread is "within noise".
# The CPU figures (system call, context switch, kernels, core to core) have
# no anchor installed from Debian that measures the same thing (lmbench and
# netperf are not packaged); they are not compared here.
#
# What each side measures (qperf src/socket.c, iperf3 src/iperf_tcp.c, and
# internal/probe/net.go, disk.go), so that a ratio compares like with like:
#  - two processes: qperf's client and server, iperf3's, and tuneloop's
#    prober and its loopback listener (the binary again, probe --listen),
#    so every exchange switches address space on each side alike.
#  - a message is one write of msg_size bytes, read whole by the peer
#    (qperf send_full/recv_full); latency is half the mean round trip of
#    msg_size each way; bandwidth is the bytes the receiver read (qperf's
#    recv_bw, iperf3's sum_received) per second.
#  - TCP with Nagle on on both sides (neither qperf nor iperf3 sets
#    TCP_NODELAY without -N; tuneloop turns Go's default off), default
#    socket buffers (the kernel's autotuning takes the sender's to 4 MiB
#    and the receiver's to ~2 MiB within 20 ms over loopback here), one
#    stream, one thread per side: blocking read/write with no socket
#    timeout on both tools; tuneloop's calls are raw (without Go's
#    system-call entry and exit, 4-5% of a round trip and as much as a
#    1-64 B write), each read or write one assembly call from the loop
#    that repeats it (as qperf's send_full calls write: every frame
#    between cost a 1 B write ~3%), its waits bounded by a guard that
#    shuts the socket down; plain TCP (not Go's default Multipath TCP
#    listener).
#  - UDP: blocking recvfrom/sendto on both sides for latency; for
#    bandwidth qperf's server recv()s, tuneloop's receiver connects to the
#    prober's first datagram and then reads (as TCP's); 65507 B datagrams at
#    "64 KiB" (the UDP maximum; qperf refuses 65536) on both sides.
#  - Still different by default: qperf runs one 2 s test on one connection
#    per figure (SECS), tuneloop takes the median of 7 windows of 120 ms (6
#    of 20 ms with QUICK), each on a new connection. On a quiet machine the
#    two agree; on a busy one they are different statistics: the median of
#    short windows skips the windows others took the CPUs in (or, when they
#    took most, keeps only those), one long run averages them in. The same
#    Go loop (blocking calls, Nagle on), load 14-18 on 2 CPUs: 1 KiB TCP
#    bandwidth, median of six 20 ms windows / one 1 s window = 4.55, 6.32,
#    1.42; 1 B latency 0.31, 0.04, 8.76. LIKE=1 gives tuneloop the
#    anchors' window (--window SECS --rounds 1): each side is then the
#    median over the bench's rounds of one run of SECS per round.
#  - tuneloop is a Go program: beside its two measuring threads a runtime
#    thread (sysmon) wakes a few thousand times a second (~5% of a CPU).
#  - fsync: both write 4 KiB and fdatasync, the overwrite within a 1 MiB
#    file already written and synced, its pages in the cache (fio
#    --invalidate=0); tuneloop's files have no name (O_TMPFILE); fio's
#    figure is median(write) + median(fdatasync), tuneloop's the median of
#    the two together. On a virtual disk each fdatasync's cache flush waits
#    for whatever others wrote before it: the two modes (~0.1 ms and 1-4
#    ms) seen here are the disk's, on both sides.
#
#   scripts/bench-probe.sh                 # 3 rounds, about 5 min
#   QUICK=1 scripts/bench-probe.sh         # 2 rounds, tuneloop --quick, 1 s anchors
#   ROUNDS=5 SECS=3 DIR=/data scripts/bench-probe.sh
#   LIKE=1 scripts/bench-probe.sh          # tuneloop rounds as long as the anchors' runs
#
#   PIN="0 1" scripts/bench-probe.sh       # both tools' two ends pinned alike
#   AA=1 PARTS=net scripts/bench-probe.sh  # and each anchor against itself
#
# Where the two ends of a loopback figure run is part of what it measures
# on few CPUs: on one CPU a round trip is two context switches and the
# bytes stay in one cache; on two it is a wake-up of the other CPU (an
# IPI, dear under some hypervisors). Unpinned, each tool gets whatever the
# scheduler gives it, and the ratio may be placement, not method: each
# round line says how often tuneloop's two ends shared a CPU. PIN="P L"
# pins the prober/client to CPU P and the listener/server to CPU L, for
# every tool: tuneloop --cpu P --peer-cpu L, qperf -lca P+1 -rca L+1 (it
# counts CPUs from 1), iperf3 -A P,L.
# On one CPU a small-message TCP stream also runs in one of two patterns,
# set by the receiver's ACKs (Nagle on: a small write waits for the ACK of
# what is in flight): ACKed at once, small segments, each waking the
# receiver, which preempts the sender; ACKs delayed (TCP's pingpong mode,
# entered when a socket answers what it just read), large segments and
# whole slices in turn (64 B, one C pair: 38 against 45 MB/s). tuneloop's
# listener ACKs at once after its hello, as qperf's and iperf3's data
# sockets, which answer nothing before the stream. Each side is read
# (tuneloop's note; qperf's client from its /proc status and ss -ti while
# tcp_bw streams): a TCP bandwidth whose senders were preempted 5x as
# often, or whose segments were 3x as large, on one side says "patterns
# differ" beside "differs".
#
# Environment: ROUNDS (3), SECS (seconds per anchor test, 2), DIR (the disk
# part's directory, default /var/tmp), PARTS (net,mem,disk), TUNELOOP (the
# binary, default bin/tuneloop), LIKE (see above), PIN (see above), AA
# (any value: each anchor runs twice a round, and a second table compares
# it with itself by the same rule, the rule's false-alarm rate here).
# Installs qperf, iperf3, fio, sysbench and jq when missing (as root).
set -euo pipefail
rounds=${ROUNDS:-3}
secs=${SECS:-2}
dir=${DIR:-/var/tmp}
parts=${PARTS:-net,mem,disk}
bin=${TUNELOOP:-bin/tuneloop}
quick=""
disksize=256M # tuneloop's disk part: 256 MiB, 32 MiB with --quick; fio gets the same file size
if [ -n "${QUICK:-}" ]; then rounds=${ROUNDS:-2}; secs=${SECS:-1}; quick="--quick"; disksize=32M; fi
like=()
if [ -n "${LIKE:-}" ]; then like=(--window "${secs}s" --rounds 1); fi
tlpin=() qpin=() ipin=()
if [ -n "${PIN:-}" ]; then
  read -r pp pl rest <<< "$PIN"
  [[ "$pp" =~ ^[0-9]+$ && "$pl" =~ ^[0-9]+$ && -z "$rest" ]] || { echo "bench-probe: PIN=\"$PIN\": want two CPU numbers, \"P L\"" >&2; exit 2; }
  tlpin=(--cpu "$pp" --peer-cpu "$pl") qpin=(-lca $((pp + 1)) -rca $((pl + 1))) ipin=(-A "$pp,$pl")
fi
qport=19765
iport=19766

NEED=""
need() { command -v "$1" >/dev/null 2>&1 || NEED+=" $2"; }
need qperf qperf; need iperf3 iperf3; need fio fio; need sysbench sysbench; need jq jq; need ss iproute2
if [ -n "$NEED" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $NEED >/dev/null
  else
    echo "bench-probe: missing$NEED (run as root to install them with apt-get)" >&2; exit 1
  fi
fi
[ -x "$bin" ] || { echo "bench-probe: $bin not built (make build)" >&2; exit 1; }

work=$(mktemp -d)
fiofile="$dir/.bench-probe-fio.$$"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"; rm -f "$fiofile"
}
trap cleanup EXIT INT TERM

qperf --listen_port $qport >/dev/null 2>&1 & pids+=($!)
iperf3 -s -p $iport >/dev/null 2>&1 & pids+=($!)
sleep 0.5

# The memory buffer sysbench reads: what tuneloop's mem part used, once known.
memblock=1G

# rec FIGURE SIDE ROUND VALUE
rec() { if [ -n "$4" ] && [ "$4" != "null" ]; then awk -v f="$1" -v s="$2" -v r="$3" -v x="$4" 'BEGIN { printf "%s %s %s %.4g\n", f, s, r, x }' >> "$work/values"; fi; }

# jqmid: a jq function, the upper median of an array of numbers, rounded
# (NONE when it is empty).
jqmid='def mid(none): sort | if length > 0 then .[length / 2 | floor] | round else none end; '

tuneloop_round() {
  local r=$1 out="$work/tl.$1.json"
  "$bin" probe $quick "${like[@]}" "${tlpin[@]}" --only "$parts" --dir "$dir" --out - -o json > "$out" 2>/dev/null
  jq -r '.figures[] | select(.median != null) | "\(.id) \(.median)"' "$out" | while read -r id v; do rec "$id" tuneloop "$r" "$v"; done
  local k
  for k in sender_preempt_per_s:preempt segment_bytes:segment; do
    jq -r --arg k "${k%%:*}" "$jqmid"'.figures[] | select(.[$k]) | "\(.id) \([.[$k][] | select(. >= 0)] | mid(""))"' "$out" |
      while read -r id v; do recx "${k#*:}" "$id" tuneloop "$r" "$v"; done
  done
  busy=$(jq -r "$jqmid"'[.figures[].others_busy_pct | select(. >= 0)] | mid("?")' "$out")
  if [ "$busy" != "?" ] && [ "$busy" -gt "${maxbusy:--1}" ]; then maxbusy=$busy; fi
  placed=$(jq -r '[.figures[].placement | select(. != null)] | "\(map(.same_cpu) | add // 0) of \(map(.rounds) | add // 0)"' "$out")
  local mb; mb=$(jq -r '.mem_buffer_bytes // empty' "$out")
  [ -n "$mb" ] && memblock="$((mb >> 20))M"
  return 0
}

# recx KIND FIGURE SIDE ROUND VALUE: a reading beside a TCP stream's
# figure, kept in $work/KIND: preempt (its sender's preemptions a second
# that round) or segment (its average segment in bytes).
recx() { if [ -n "$5" ] && [ "$5" != "null" ]; then echo "$2 $3 $4 $5" >> "$work/$1"; fi; }

# nvcs PID: sets NV to PID's involuntary context switches so far ("" when
# gone), with builtins only (no fork beside a pinned stream).
nvcs() { local k v; NV=""; while read -r k v _; do if [ "$k" = nonvoluntary_ctxt_switches: ]; then NV=$v; return; fi; done < "/proc/$1/status" 2>/dev/null; }

# sentnow: "ADDRS BYTES SEGMENTS" of the established TCP socket that has
# sent the most (ss -ti: bytes_sent, data_segs_out): the stream running.
sentnow() {
  ss -tinH state established 2>/dev/null | awk '
    /^[ \t]/ { b = ""; g = ""
      for (i = 1; i <= NF; i++) { if ($i ~ /^bytes_sent:/) b = substr($i, 12); if ($i ~ /^data_segs_out:/) g = substr($i, 15) }
      if (b != "" && g != "" && b + 0 > best) { best = b + 0; out = k " " b " " g }
      next }
    { k = $(NF-1) "-" $NF }
    END { print out }'
}

# sampled OUT CMD...: runs CMD (output appended to OUT) and sets PRE to
# how many times a second it was preempted from 0.3 s in to 0.15 s before
# its test ends, SEG to its stream's average segment over that time (""
# when either could not be read): the pattern its stream ran in, as
# tuneloop's note gives for its own.
sampled() {
  local out=$1 pid a t0 b t1 s0 s1; shift
  "$@" >> "$out" 2>&1 & pid=$!
  PRE="" SEG=""
  sleep 0.3; nvcs $pid; a=$NV t0=$EPOCHREALTIME; s0=$(sentnow)
  sleep "$midsecs"; nvcs $pid; b=$NV t1=$EPOCHREALTIME; s1=$(sentnow)
  wait $pid || true
  if [ -n "$a" ] && [ -n "$b" ]; then PRE=$(awk -v a="$a" -v b="$b" -v t0="$t0" -v t1="$t1" 'BEGIN { if (t1 > t0) printf "%.0f", (b - a) / (t1 - t0) }'); fi
  SEG=$(echo "$s0 $s1" | awk 'NF == 6 && $1 == $4 && $6 > $3 { printf "%.0f", ($5 - $2) / ($6 - $3) }')
}
midsecs=$(awk -v s="$secs" 'BEGIN { print (s > 0.6 ? s - 0.45 : 0.15) }')

qperf_val() { # TEST FIELD file: the value in base units (-uu: ns, bytes/sec)
  awk -v t="$1:" -v f="$2" '$1 == t {in_t=1; next} /^[a-z_]+:$/ {in_t=0} in_t && $1 == f {print $3; exit}' "$3"
}

anchor_round() { # ROUND [SIDE: anchor, or anchor2 for AA=1's second run]
  local r=$1 side=${2:-anchor}
  if [[ $parts == *net* ]]; then
    for s in 1 64 1024 65536; do
      local f="$work/qperf.$r.$s" us=$((s > 65507 ? 65507 : s))
      # UDP over 65507 B is refused (qperf prints 0): tuneloop sends 65507
      # B datagrams at that size and says so, qperf gets the same.
      qperf "${qpin[@]}" -lp $qport -uu -t "$secs" -oo "msg_size:$s" 127.0.0.1 tcp_lat > "$f" 2>&1 || true
      # tcp_bw alone, so its sender (qperf's client) is read while it streams.
      sampled "$f" qperf "${qpin[@]}" -lp $qport -uu -t "$secs" -oo "msg_size:$s" 127.0.0.1 tcp_bw
      recx preempt "net.tcp_bw.$s" "$side" "$r" "$PRE"
      recx segment "net.tcp_bw.$s" "$side" "$r" "$SEG"
      qperf "${qpin[@]}" -lp $qport -uu -t "$secs" -oo "msg_size:$us" 127.0.0.1 udp_lat udp_bw >> "$f" 2>&1 || true
      rec "net.tcp_lat.$s" "$side" "$r" "$(qperf_val tcp_lat latency "$f" | awk '{ if ($1 > 0) print $1 / 1000 }')"
      rec "net.tcp_bw.$s" "$side" "$r" "$(qperf_val tcp_bw bw "$f" | awk '{ if ($1 > 0) print $1 / 1e6 }')"
      rec "net.udp_lat.$s" "$side" "$r" "$(qperf_val udp_lat latency "$f" | awk '{ if ($1 > 0) print $1 / 1000 }')"
      rec "net.udp_bw.$s" "$side" "$r" "$(qperf_val udp_bw recv_bw "$f" | awk '{ if ($1 > 0) print $1 / 1e6 }')"
    done
    iperf3 "${ipin[@]}" -c 127.0.0.1 -p $iport -t "$secs" -l 64K -J > "$work/iperf.$r" 2>/dev/null || true
    rec "net.tcp_bw.65536~iperf3" "$side" "$r" "$(jq -r '.end.sum_received.bits_per_second / 8 / 1e6' "$work/iperf.$r" 2>/dev/null || true)"
  fi
  if [[ $parts == *mem* ]]; then
    sysbench memory --threads=1 --memory-block-size="$memblock" --memory-total-size=10000G --memory-oper=read \
      --time="$secs" run > "$work/sb.$r" 2>&1 || true
    rec mem.read "$side" "$r" "$(awk -F'[()]' '/MiB\/sec/ {split($2, a, " "); print a[1] * 1048576 / 1e9}' "$work/sb.$r")"
  fi
  if [[ $parts == *disk* ]]; then
    # File states as tuneloop's: the fsync figure appends to a fresh file
    # (a log: each fdatasync commits the size change), fsync_overwrite
    # rewrites 1 MiB already written (the second of two runs), and the
    # throughput jobs overwrite a file laid out before them (--overwrite=1).
    local common=(--filename="$fiofile" --ioengine=psync --time_based --runtime="$secs" --output-format=json --fallocate=none)
    rm -f "$fiofile"
    fio --name=fsync "${common[@]}" --size=64M --rw=write --bs=4k --fdatasync=1 > "$work/fio.fs.$r" 2>/dev/null || true
    rec disk.fsync "$side" "$r" "$(jq -r '(.jobs[0].write.clat_ns.percentile["50.000000"] + .jobs[0].sync.lat_ns.percentile["50.000000"]) / 1000' "$work/fio.fs.$r" 2>/dev/null || true)"
    rec disk.fsync_p99 "$side" "$r" "$(jq -r '(.jobs[0].write.clat_ns.percentile["99.000000"] + .jobs[0].sync.lat_ns.percentile["99.000000"]) / 1000' "$work/fio.fs.$r" 2>/dev/null || true)"
    rm -f "$fiofile"
    for pass in 1 2; do
      fio --name=fsyncow "${common[@]}" --size=1M --overwrite=1 --invalidate=0 --rw=write --bs=4k --fdatasync=1 > "$work/fio.fo.$r" 2>/dev/null || true
    done
    rec disk.fsync_overwrite "$side" "$r" "$(jq -r '(.jobs[0].write.clat_ns.percentile["50.000000"] + .jobs[0].sync.lat_ns.percentile["50.000000"]) / 1000' "$work/fio.fo.$r" 2>/dev/null || true)"
    rm -f "$fiofile"
    fio --name=sw "${common[@]}" --size="$disksize" --overwrite=1 --rw=write --bs=1M --direct=1 > "$work/fio.sw.$r" 2>/dev/null || true
    rec disk.seq_write "$side" "$r" "$(jq -r '.jobs[0].write.bw_bytes / 1e6' "$work/fio.sw.$r" 2>/dev/null || true)"
    fio --name=sr "${common[@]}" --size="$disksize" --rw=read --bs=1M --direct=1 > "$work/fio.sr.$r" 2>/dev/null || true
    rec disk.seq_read "$side" "$r" "$(jq -r '.jobs[0].read.bw_bytes / 1e6' "$work/fio.sr.$r" 2>/dev/null || true)"
    fio --name=rr "${common[@]}" --size="$disksize" --rw=randread --bs=4k --direct=1 > "$work/fio.rr.$r" 2>/dev/null || true
    rec disk.rand_read "$side" "$r" "$(jq -r '.jobs[0].read.iops' "$work/fio.rr.$r" 2>/dev/null || true)"
    fio --name=rw "${common[@]}" --size="$disksize" --overwrite=1 --rw=randwrite --bs=4k --direct=1 > "$work/fio.rw.$r" 2>/dev/null || true
    rec disk.rand_write "$side" "$r" "$(jq -r '.jobs[0].write.iops' "$work/fio.rw.$r" 2>/dev/null || true)"
    rm -f "$fiofile"
  fi
}

echo "bench-probe: $rounds rounds, anchors ${secs}s per test, tuneloop ${like[*]:-with its default windows}, parts $parts, disk $dir, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
touch "$work/values" "$work/preempt" "$work/segment"
busy="?" placed="?" maxbusy=""
for r in $(seq 1 "$rounds"); do
  if [ -n "${AA:-}" ]; then
    if [ $((r % 2)) = 1 ]; then tuneloop_round "$r"; anchor_round "$r"; anchor_round "$r" anchor2; order="tuneloop, anchors, anchors again"
    else anchor_round "$r" anchor2; anchor_round "$r"; tuneloop_round "$r"; order="anchors again, anchors, tuneloop"; fi
  elif [ $((r % 2)) = 1 ]; then tuneloop_round "$r"; anchor_round "$r"; order="tuneloop, anchors"
  else anchor_round "$r"; tuneloop_round "$r"; order="anchors, tuneloop"; fi
  echo "round $r ($order) done, load $(cut -d' ' -f1-3 /proc/loadavg), others kept ${busy}% of the CPUs busy during tuneloop's figures (median), tuneloop's two ends on one CPU at the end of ${placed} net rounds${PIN:+ (pinned $PIN)}"
done
# Busy: others (not the bench's own processes, which the load average
# counts: two streams pinned together make it 2) kept over a quarter of
# the CPUs busy in some round, as tuneloop read it; the load average only
# when that was not read.
if { [ -n "$maxbusy" ] && [ "$maxbusy" -gt 25 ]; } ||
   { [ -z "$maxbusy" ] && awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; }; then
  if [ ${#like[@]} = 0 ]; then
    echo "bench-probe: a busy machine: tuneloop's short windows and the anchors' long runs are different statistics here (see the header); rerun quiet, or with LIKE=1"
  else
    echo "bench-probe: a busy machine: each run's value depends on what others took while it ran; rerun quiet before reading a ratio as a difference of method"
  fi
fi

# The iperf3 row compares with tuneloop's 64 KiB TCP bandwidth.
awk '$1 == "net.tcp_bw.65536" && $2 == "tuneloop" {print "net.tcp_bw.65536~iperf3", $2, $3, $4}' "$work/values" >> "$work/values"

# table X Y: per figure X's and Y's rounds, the ratio of their medians,
# each one's spread, and the verdict.
table() {
  printf "%-28s %-34s %-34s %10s %8s %8s  %s\n" figure "$3 (each round)" "$4 (each round)" "ratio" spreadT spreadA verdict
  awk -v x="$1" -v y="$2" '
function med(s,   n, a, i, j, t) { n = split(s, a, " "); for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
  return n == 0 ? "" : (n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2) }
function spread(s,   n, a, i, lo, hi, m) { n = split(s, a, " "); if (n < 2) return -1; lo = hi = a[1]
  for (i = 2; i <= n; i++) { if (a[i] + 0 < lo + 0) lo = a[i]; if (a[i] + 0 > hi + 0) hi = a[i] }; m = med(s); return m > 0 ? (hi - lo) / m : -1 }
FILENAME ~ /preempt$/ { p[$1 " " $2] = p[$1 " " $2] " " $4; next }
FILENAME ~ /segment$/ { g[$1 " " $2] = g[$1 " " $2] " " $4; next }
{ v[$1 " " $2] = v[$1 " " $2] " " $4; seen[$1] = 1 }
END {
  for (id in seen) {
    t = v[id " " x]; a = v[id " " y]
    if (t == "" || a == "") continue
    mt = med(t); ma = med(a); st = spread(t); sa = spread(a)
    ratio = (ma > 0) ? mt / ma : 0
    noise = (st > sa) ? st : sa
    d = ratio - 1; if (d < 0) d = -d
    verdict = (noise < 0) ? "one round" : (d <= noise ? "within noise" : "differs")
    # Senders preempted 5x as often on one side (and 100+ a second), or
    # segments 3x as large, ran in another pattern: how the receiver ACKed
    # (what compare says of two probes).
    pt = med(p[id " " x]); pa = med(p[id " " y]); gt = med(g[id " " x]); ga = med(g[id " " y])
    if (verdict == "differs") {
      why = ""
      if (pt != "" && pa != "") {
        hi = pt + 0 > pa + 0 ? pt + 0 : pa + 0; lo = pt + 0 > pa + 0 ? pa + 0 : pt + 0
        if (hi >= 100 && hi >= 5 * (lo > 1 ? lo : 1)) why = sprintf("preempted %.0f vs %.0f/s", pt, pa)
      }
      if (gt > 0 && ga > 0 && (gt >= 3 * ga || ga >= 3 * gt)) why = why (why == "" ? "" : ", ") sprintf("segments %.0f vs %.0f B", gt, ga)
      if (why != "") verdict = "differs: patterns differ (" why ")"
    }
    printf "%-28s %-34s %-34s %10.2f %7.0f%% %7.0f%%  %s\n", id, substr(t, 2), substr(a, 2), ratio, 100 * st, 100 * sa, verdict
  }
}' "$work/preempt" "$work/segment" "$work/values" | sort
}

echo
table tuneloop anchor tuneloop anchor
# Pinned together, a small-message TCP stream runs in one of two patterns
# (see the header): each side's, every round.
readings() { # KIND TITLE: every round's readings of KIND, per figure and side
  [ -s "$work/$1" ] || return 0
  echo "$2"
  awk '{ v[$1 "  " $2] = v[$1 "  " $2] " " $4 } END { for (k in v) printf "  %s:%s\n", k, v[k] }' "$work/$1" | sort
}
readings preempt "TCP senders, preemptions a second in each round (thousands: the receiver ACKs at once and its wake-ups cut in; hundreds: ACKs delayed, whole slices in turn):"
readings segment "TCP streams, average segment in bytes in each round (Nagle on: small writes gather until the receiver's ACK):"
if [ -n "${AA:-}" ]; then
  # The anchor against itself, by the same rule: how often the rule calls
  # two runs of one tool different on this machine now. A tuneloop figure
  # that "differs" by less than the anchor's own A/A ratios do is not
  # told apart from the anchor by this bench.
  echo
  echo "the anchors against themselves (AA=1: a second run of each anchor in every round)"
  table anchor anchor2 anchor "anchor again" | tee "$work/aa"
  echo "the rule calls $(grep -c ' differs$' "$work/aa" || true) of $(($(wc -l < "$work/aa") - 1)) figures different between an anchor and itself"
fi
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
