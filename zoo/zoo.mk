# tuneloop zoo: Java services that reproduce the seeds' bottlenecks (see zoo/README.md).
#
# Included from the top Makefile (`include zoo/zoo.mk`) or used alone from the repository root:
#   make -f zoo/zoo.mk zoo          build zoo/target/zoo.jar and the eval services (Maven fetches everything it needs)
#   make -f zoo/zoo.mk zoo-eval     build only the eval services (zoo/eval/services.tsv): Spring Boot, Netty, plain JDK
#   make -f zoo/zoo.mk zoo-smoke    build, start every scenario (and its fix) ~3 s, curl /api, stop
#   make -f zoo/zoo.mk zoo-bench    wrk before/after table (needs wrk; ~30 s per scenario)
#   make -f zoo/zoo.mk zoo-clean
# Needs JDK 11+ (built and tested on 17 and 25), Maven 3.6+, curl; zoo-bench also needs wrk.

ZOO_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
MVN ?= mvn
ZOO_MVNFLAGS ?= -B -q
ZOO_JAR := $(ZOO_DIR)/target/zoo.jar
ZOO_SRC := $(ZOO_DIR)/pom.xml $(shell find $(ZOO_DIR)/src -type f 2>/dev/null)
# Port for zoo-smoke and zoo-bench (not 8080, which a developer's own service may hold).
ZOO_PORT ?= 28080

.PHONY: zoo zoo-eval zoo-clean zoo-smoke zoo-bench

zoo: $(ZOO_JAR) zoo-eval

# The eval zoo (make eval): three Maven projects built in one Maven run by the aggregator
# zoo/eval/pom.xml; each jar is rebuilt only when its project's sources change.
ZOO_EVAL_JARS := $(ZOO_DIR)/spring/target/storefront.jar $(ZOO_DIR)/netty/target/edge.jar $(ZOO_DIR)/jdk/target/backoffice.jar
ZOO_EVAL_SRC := $(ZOO_DIR)/eval/pom.xml $(foreach p,spring netty jdk,$(ZOO_DIR)/$(p)/pom.xml $(shell find $(ZOO_DIR)/$(p)/src -type f 2>/dev/null))

zoo-eval: $(ZOO_DIR)/eval/.built

$(ZOO_DIR)/eval/.built: $(ZOO_EVAL_SRC)
	$(MVN) $(ZOO_MVNFLAGS) -f $(ZOO_DIR)/eval/pom.xml package
	@for f in $(ZOO_EVAL_JARS); do echo "built $$f ($$(du -h $$f | cut -f1))"; done
	@touch $@

$(ZOO_JAR): $(ZOO_SRC)
	$(MVN) $(ZOO_MVNFLAGS) -f $(ZOO_DIR)/pom.xml package
	@echo "built $@ ($$(du -h $@ | cut -f1))"

zoo-clean:
	rm -rf $(ZOO_DIR)/target $(ZOO_DIR)/spring/target $(ZOO_DIR)/netty/target $(ZOO_DIR)/jdk/target $(ZOO_DIR)/eval/.built

zoo-smoke: $(ZOO_JAR)
	ZOO_PORT=$(ZOO_PORT) $(ZOO_DIR)/smoke.sh

zoo-bench: $(ZOO_JAR)
	PORT=$(ZOO_PORT) $(ZOO_DIR)/bench.sh
