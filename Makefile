# tuneloop: `make demo` runs the main job, `make test` runs everything CI runs.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/tuneloop/tuneloop/internal/version.Version=$(VERSION)
BIN := bin/tuneloop
OUT ?= out

include zoo/zoo.mk

.PHONY: all build cross test test-e2e vet fmt-check docs docs-check bench bench-load bench-load-quick bench-probe bench-gate bench-profile bench-bigfiles profile-zoo eval fuzz demo demo-tune jmeter-check test-jmeter bench-jmeter clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/tuneloop

# Both release architectures, static.
cross:
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/tuneloop-linux-amd64 ./cmd/tuneloop
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/tuneloop-linux-arm64 ./cmd/tuneloop
	@for f in bin/tuneloop-linux-amd64 bin/tuneloop-linux-arm64; do echo "built $$f ($$(du -h $$f | cut -f1))"; done

fmt-check:
	@bad=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$bad" ]; then echo "not gofmt-formatted:"; echo "$$bad"; exit 1; fi

vet:
	$(GO) vet ./...
	$(GO) vet -tags e2e ./internal/cli

# Everything CI runs: formatting, vet, the zoo (the Java services the
# end-to-end tests load), the race-enabled unit and integration tests, then
# the end-to-end zoo tests alone (real JVMs under load, one at a time, after
# everything else: nothing else of the suite shares the CPUs while they
# compare throughput), both architectures, and generated docs in sync with
# the knowledge base.
test: fmt-check vet zoo
	$(GO) test -race -count=1 ./...
	$(MAKE) --no-print-directory test-e2e
	$(MAKE) --no-print-directory cross
	$(MAKE) --no-print-directory docs-check

# docs/rules.md is generated from the knowledge base, docs/findings.md from
# every rule set (the knowledge base, run diagnosis, GC logs, thread dumps,
# logging configurations).
docs: build
	$(BIN) check --list --output markdown > docs/rules.md
	$(BIN) check --list --all --output markdown > docs/findings.md

docs-check: build
	@$(BIN) check --list --output markdown | diff -u docs/rules.md - >/dev/null || \
	  { echo "docs/rules.md is stale: run 'make docs'"; exit 1; }
	@$(BIN) check --list --all --output markdown | diff -u docs/findings.md - >/dev/null || \
	  { echo "docs/findings.md is stale: run 'make docs'"; exit 1; }
	@echo "docs/rules.md and docs/findings.md are up to date"

# The zoo end to end: `tuneloop run` on each scenario and its fix.
test-e2e: zoo
	$(GO) test -race -count=1 -p 1 -tags e2e -timeout 25m -v -run '^(TestZoo|TestRunJTLWatch)' ./internal/cli 2>&1 | \
		grep -v -E '^=== (RUN|PAUSE|CONT)'; exit $${PIPESTATUS[0]}

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# tuneloop load against wrk on nginx (installs nginx and wrk when missing).
bench-load: build
	scripts/bench-load.sh

# Five cells of the matrix, under 2 minutes.
bench-load-quick: build
	QUICK=1 scripts/bench-load.sh

# tuneloop probe against qperf, iperf3, sysbench and fio, interleaved (about 5 min).
bench-probe: build
	scripts/bench-probe.sh

# The compare gate measured: A/A false alarms and detection of 5%/10% slowdowns (~5 min on 2 idle cores);
# MODE=windows: load --versus windows; MODE=sets: sequential sets of zoo launches (builds the zoo; hours);
# MODE=sim: the power curve simulated over recorded launches (a few minutes).
bench-gate: build $(if $(filter sets history,$(MODE)),zoo)
	scripts/bench-gate.sh

# Overhead of jvm --profile cpu on a zoo service under load, interleaved off/on windows (~2 min).
bench-profile: build zoo
	scripts/bench-profile.sh healthy 10 5 20

# Every analyze reader on 2 GB inputs: peak RSS, time, and exit after SIGTERM (~15 min; SIZE_MB=256 for a quick look).
bench-bigfiles: build
	scripts/bench-bigfiles.sh ./tuneloop

# Every zoo scenario x cpu, alloc, lock, wall profiles: top frames (not in CI: ~1 min per scenario).
profile-zoo: build zoo
	scripts/profile-zoo.sh

# The eval zoo (zoo/eval/services.tsv): each service under `tuneloop run`, one at a time, and the
# confusion table of expected vs named mechanism and code frame (a few minutes; not in CI).
eval: build zoo
	scripts/eval.sh

# Short coverage-guided fuzzing of every parser (FUZZTIME per target).
FUZZTIME ?= 15s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$t"; (ulimit -v 6000000; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s $$pkg) || exit 1; \
	  done; done

# The main job: the zoo's synchronous-logging service under `tuneloop run`,
# then its fixed variant; prints both reports and the TPS before and after.
demo: build zoo
	OUT=$(OUT) scripts/demo.sh

# tuneloop experiment on the zoo's gc-pressure service (heap x collector,
# interleaved trials, the winner re-measured); checks nothing was left changed.
demo-tune: build zoo
	OUT=$(OUT) scripts/demo-tune.sh

# JMeter (5.6.3, assembled from Maven into ~/.cache/tuneloop) and tuneloop run
# the same plans against one 127.0.0.1 server; their per-label counts must match.
jmeter-check: build
	scripts/jmeter-check.sh

# JMeter as the load engine (run/load --engine jmeter, --jmeter-remote) against
# real JMeter from the same cache: counts equal to JMeter alone's, two
# jmeter-server engines, run --repeat + compare, kill -9 (~3 min; .ci/run).
test-jmeter:
	scripts/test-jmeter.sh

# CPU per request of the built-in generator and of JMeter, same plan, same
# nginx on 127.0.0.1, interleaved rounds (~2 min).
bench-jmeter: build
	scripts/bench-jmeter.sh

clean: zoo-clean
	rm -rf bin $(OUT)
