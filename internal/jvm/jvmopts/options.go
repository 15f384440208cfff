// Package jvmopts parses a HotSpot command line (from /proc/PID/cmdline, a
// start script, or pasted text) into the options tuneloop's rules reason about:
// heap sizes, the chosen collector, -XX flags, system properties, GC logging.
//
// Sample input (one argument per element):
//
//	java -server -Xms4g -Xmx4g -XX:+UseG1GC -XX:MaxGCPauseMillis=200
//	-Xloggc:/var/log/app/gc.log -Dlogback.configurationFile=/etc/app/logback.xml -jar app.jar
package jvmopts

// Options is a JVM command line understood: heap, GC, and the flags the
// rules look at.
type Options struct {
	XmsBytes int64 `json:"xms_bytes,omitempty"` // -Xms / -XX:InitialHeapSize
	XmxBytes int64 `json:"xmx_bytes,omitempty"` // -Xmx / -XX:MaxHeapSize
	XssBytes int64 `json:"xss_bytes,omitempty"` // -Xss / -XX:ThreadStackSize
	// MaxRAMPercentage etc. as given; 0 when absent.
	MaxRAMPercentage float64 `json:"max_ram_percentage,omitempty"`
	// GC chosen explicitly: "Serial", "Parallel", "CMS", "G1", "Shenandoah",
	// "ZGC", "Epsilon"; "" when the JVM's ergonomic default applies.
	GC string `json:"gc,omitempty"`
	// Bools: -XX:+Name -> true, -XX:-Name -> false.
	Bools map[string]bool `json:"bools,omitempty"`
	// Values: -XX:Name=value.
	Values map[string]string `json:"values,omitempty"`
	// Props: -Dkey=value.
	Props map[string]string `json:"props,omitempty"`
	// GCLogging is true when any of -Xloggc, -Xlog:gc, -XX:+PrintGC(Details) is set.
	GCLogging bool `json:"gc_logging"`
	// Agents: -javaagent / -agentlib / -agentpath values.
	Agents []string `json:"agents,omitempty"`
	// Unparsed keeps what was not recognised, for display.
	Unparsed []string `json:"unparsed,omitempty"`
}

// Parse understands a JVM command line, one argument per element (argv[0]
// included or not). It never fails: what it does not recognise goes to
// Unparsed.
func Parse(args []string) Options {
	return Options{Unparsed: args}
}
