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
VERSION=5.6.3
JMETER_HOME=${JMETER_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/tuneloop/jmeter-$VERSION}
export JMETER_HOME
cd "$(dirname "$0")/.."

if [ ! -f "$JMETER_HOME/bin/ApacheJMeter.jar" ]; then
	command -v mvn >/dev/null || { echo "jmeter-check: mvn is needed to fetch JMeter from Maven Central" >&2; exit 1; }
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>tuneloop</groupId><artifactId>jmeter-check</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.jmeter</groupId><artifactId>ApacheJMeter_core</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.apache.jmeter</groupId><artifactId>ApacheJMeter_http</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.apache.jmeter</groupId><artifactId>ApacheJMeter_components</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.apache.jmeter</groupId><artifactId>ApacheJMeter_functions</artifactId><version>$VERSION</version></dependency>
  </dependencies>
</project>
POM
	mkdir -p "$JMETER_HOME/bin" "$JMETER_HOME/lib/ext"
	# Libraries into lib/, JMeter's own jars into lib/ext/ (where JMeter looks for test elements).
	mvn -q -f "$work/pom.xml" dependency:copy-dependencies -DoutputDirectory="$JMETER_HOME/lib"
	mv "$JMETER_HOME"/lib/ApacheJMeter_*.jar "$JMETER_HOME/lib/ext/"
	# The launcher (bin/ApacheJMeter.jar) and the configuration files (bin/*.properties).
	mvn -q dependency:copy -Dartifact=org.apache.jmeter:ApacheJMeter:$VERSION -DoutputDirectory="$work"
	cp "$work/ApacheJMeter-$VERSION.jar" "$JMETER_HOME/bin/ApacheJMeter.jar"
	mvn -q dependency:copy -Dartifact=org.apache.jmeter:ApacheJMeter_config:$VERSION -DoutputDirectory="$work"
	(cd "$JMETER_HOME" && unzip -qo "$work/ApacheJMeter_config-$VERSION.jar" 'bin/*')
fi

go test -tags jmeter -count=1 -v -run TestJMeterCounts ./internal/jmx/
