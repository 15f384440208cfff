#!/bin/sh
# Check that `tuneloop load --jmx` sends what JMeter sends: assemble JMeter
# 5.6.3 from Maven Central (a heavy download, once, into $JMETER_HOME), then
# run internal/jmx's TestJMeterCounts (build tag jmeter): two plans bounded by
# loops (ours, and Apache JMeter's SimpleTestPlan.jmx pointed at 127.0.0.1)
# run under JMeter and under tuneloop against one local server; both JTLs
# are read back and their request counts per label must be equal, as must
# the paths the server saw. About 35 s once JMeter is cached; `make
# jmeter-check`. Not part of `make test`.
set -eu
cd "$(dirname "$0")/.."
. scripts/jmeter-fetch.sh

go test -tags jmeter -count=1 -v -run TestJMeterCounts ./internal/jmx/
