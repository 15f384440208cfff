#!/bin/sh
# Sourced by jmeter-check.sh and test-jmeter.sh: JMeter 5.6.3 assembled from
# Maven Central (a heavy download, once) into $JMETER_HOME, by default
# ~/.cache/tuneloop/jmeter-5.6.3; exports JMETER_HOME.
VERSION=5.6.3
JMETER_HOME=${JMETER_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/tuneloop/jmeter-$VERSION}
export JMETER_HOME

if [ ! -f "$JMETER_HOME/bin/ApacheJMeter.jar" ]; then
	command -v mvn >/dev/null || { echo "jmeter-fetch: mvn is needed to fetch JMeter from Maven Central" >&2; exit 1; }
	work=$(mktemp -d)
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
	mvn -q -f "$work/pom.xml" dependency:copy-dependencies -DoutputDirectory="$JMETER_HOME/lib" || { rm -rf "$work"; exit 1; }
	mv "$JMETER_HOME"/lib/ApacheJMeter_*.jar "$JMETER_HOME/lib/ext/"
	# The configuration files (bin/*.properties), then the launcher
	# (bin/ApacheJMeter.jar) last: its presence says the cache is complete.
	mvn -q dependency:copy -Dartifact=org.apache.jmeter:ApacheJMeter_config:$VERSION -DoutputDirectory="$work" &&
	(cd "$JMETER_HOME" && unzip -qo "$work/ApacheJMeter_config-$VERSION.jar" 'bin/*') &&
	mvn -q dependency:copy -Dartifact=org.apache.jmeter:ApacheJMeter:$VERSION -DoutputDirectory="$work" &&
	cp "$work/ApacheJMeter-$VERSION.jar" "$JMETER_HOME/bin/ApacheJMeter.jar" || { rm -rf "$work"; exit 1; }
	rm -rf "$work"
fi
