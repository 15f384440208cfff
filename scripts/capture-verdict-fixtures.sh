#!/usr/bin/env bash
# Records real run folders of the zoo's scenarios with `tuneloop run` for the
# verdict's table test (internal/verdict/testdata/runs/NAME). Each folder keeps
# what the verdict reads (manifest, raw samples, thread dumps, GC logs,
# load.json, check.json) and drops what is rendered from it (reports) and the
# JFR recording (large; the table test does not need it).
#
#   scripts/capture-verdict-fixtures.sh [TUNELOOP_BIN] [SCENARIO...]
#
# Needs the zoo jar (make zoo) and a JDK. Loads only 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/tuneloop}; shift || true
jar=zoo/target/zoo.jar
out=internal/verdict/testdata/runs
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(sync-logging deadlock pool-starvation single-thread fsync-io fsync-io-light gc-pressure cpu-hot healthy)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$((20000 + RANDOM % 20000))
for s in "${scenarios[@]}"; do
  opts="" args="" load="-c 50" scen=$s
  case $s in
    fsync-io-light) scen=fsync-io load="-c 4" ;; # a lock a few threads queue on, the CPU with room
    gc-pressure) opts="-Xmx64m -Xms64m" ;;
    deadlock) args="--deadlock-after 50" ;;
    healthy) load="--rate 200" ;;
  esac
  echo "== $s"
  "$bin" run --target "http://127.0.0.1:$port/api" $load -d 8s --warm-up 3s --interval 500ms --dump-every 2s \
    --start "exec java $opts -jar $jar --scenario $scen --port $port --log-dir $tmp/logs-$s --data-dir $tmp/data-$s $args" \
    --no-jfr --no-catalog --quiet --out "$tmp/$s" | sed -n '1,6p'
  rm -rf "${out:?}/$s"
  mkdir -p "$out/$s/raw"
  cp "$tmp/$s/manifest.json" "$tmp/$s/load.json" "$tmp/$s/check.json" "$out/$s/"
  cp "$tmp/$s"/raw/samples.jsonl.gz "$out/$s/raw/"
  cp "$tmp/$s"/raw/threaddump-* "$tmp/$s"/raw/sockets-* "$tmp/$s"/raw/gc-*.log "$out/$s/raw/" 2>/dev/null || true
  port=$((port + 1))
done
du -sh "$out"/*

# disk-dd: this host recorded while four dd writers with O_DIRECT keep its
# disk busy (the disk-saturation row). Only when asked: it writes for 6 s.
if [ "${CAPTURE_DISK:-}" = 1 ]; then
  echo "== disk-dd"
  for i in 1 2 3 4; do timeout 6 dd if=/dev/zero of="$tmp/dd$i" bs=1M count=100000 oflag=direct status=none & done
  sleep 0.5
  "$bin" record -d 4s -i 500ms --no-catalog --quiet --out "$tmp/disk-dd" | sed -n '1,8p'
  wait
  rm -rf "${out:?}/disk-dd"; mkdir -p "$out/disk-dd/raw"
  cp "$tmp/disk-dd/manifest.json" "$out/disk-dd/"; cp "$tmp/disk-dd/raw/samples.jsonl.gz" "$out/disk-dd/raw/"
fi
