#!/usr/bin/env bash
# `make test-jmeter`: JMeter as tuneloop's load engine against real JMeter
# 5.6.3 (scripts/jmeter-fetch.sh: from Maven Central, cached) and servers on
# 127.0.0.1 (internal/cli/jmeter_engine_test.go and jmeter_ssh_test.go,
# build tag jmeter): a plan the built-in generator cannot run, counts equal
# to JMeter alone's, two jmeter-server engines (--jmeter-remote), one out of
# file descriptors named capped, `run --engine jmeter --repeat 2` and
# compare, a kill -9 of tuneloop that leaves no JMeter behind and a Ctrl-C
# that stops JMeter and keeps the run; two engines started over SSH (the
# sshd harness) under `run --host` with --rate, and a kill -9 there. About
# 3 minutes on 2 cores;
# one test at a time (each starts JVMs).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jmeter-fetch.sh
# Every JMeter JVM of the tests (tuneloop passes JVM_ARGS on as the jmeter
# script does): a small heap, and C1 only, so that eight JVM starts on two
# cores take seconds each; counts do not depend on the JIT.
export JVM_ARGS="${JVM_ARGS:--Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}"
go test -tags jmeter -race -count=1 -p 1 -timeout 10m -v -run '^TestJMeterEngine' ./internal/cli 2>&1 |
	grep -v -E '^=== (RUN|PAUSE|CONT)'
