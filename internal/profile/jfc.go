package profile

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/stacks"
)

// JFR's "profile" settings turn on far more than a profile needs (old
// object samples, socket and file I/O, class loading, thread CPU load, GC
// phases, ...): measured 8.5% fewer requests per second under
// `--profile cpu`. Capture records instead with a settings file (.jfc, JFR's
// own XML; JDK 11+ and 8u262+ take settings=PATH) of the kind's events only.
// Events a .jfc does not name stay off.

// jfcEvent is one event's settings, in the order written.
type jfcEvent struct {
	name     string
	settings [][2]string
}

// Sampling periods: 20 ms is the "profile" settings' native period and
// half their Java rate (10 ms), which is what the CPU profile's overhead
// comes from; the reader takes the periods from the recording itself.
const (
	javaPeriod   = "20 ms"
	nativePeriod = "20 ms"
	// lockThreshold keeps monitor waits and parks over 1 ms (the profile
	// settings keep those over 10 ms only; a contended logging lock is held
	// for far less each time).
	lockThreshold = "1 ms"
	// allocThrottle is jdk.ObjectAllocationSample's rate cap ("high" in the
	// profile settings' allocation-profiling option).
	allocThrottle = "1000/s"
)

// kindEvents are the events a profile of kind records on a JVM of feature
// version jdk (0: not known, taken as 17+). jdk.ActiveSetting is always
// there: it says the periods the wall view weighs its samples with and
// whether threads in native code were sampled.
func kindEvents(k stacks.Kind, jdk int) []jfcEvent {
	on := [2]string{"enabled", "true"}
	stack := [2]string{"stackTrace", "true"}
	java := jfcEvent{"jdk.ExecutionSample", [][2]string{on, {"period", javaPeriod}}}
	native := jfcEvent{"jdk.NativeMethodSample", [][2]string{on, {"period", nativePeriod}}}
	locks := []jfcEvent{
		{"jdk.JavaMonitorEnter", [][2]string{on, stack, {"threshold", lockThreshold}}},
		{"jdk.ThreadPark", [][2]string{on, stack, {"threshold", lockThreshold}}},
	}
	evs := []jfcEvent{{"jdk.ActiveSetting", [][2]string{on}}}
	switch k {
	case stacks.CPU:
		evs = append(evs, java, native)
	case stacks.Alloc:
		if jdk == 0 || jdk >= 16 {
			evs = append(evs, jfcEvent{"jdk.ObjectAllocationSample", [][2]string{on, stack, {"throttle", allocThrottle}}})
		} else {
			// Before JDK 16: an event per new TLAB and per allocation
			// outside one (the profile settings' own choice there).
			evs = append(evs,
				jfcEvent{"jdk.ObjectAllocationInNewTLAB", [][2]string{on, stack}},
				jfcEvent{"jdk.ObjectAllocationOutsideTLAB", [][2]string{on, stack}})
		}
	case stacks.Lock:
		evs = append(evs, locks...)
	case stacks.Wall:
		evs = append(append(evs, java, native), locks...)
	}
	return evs
}

// jfc is the settings file of kind for a JVM of feature version jdk.
func jfc(k stacks.Kind, jdk int) []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(&b, "<configuration version=\"2.0\" label=\"tuneloop %s\" description=\"tuneloop: only the events of a %s profile\">\n", k, k)
	for _, e := range kindEvents(k, jdk) {
		fmt.Fprintf(&b, "  <event name=%q>", e.name)
		for _, s := range e.settings {
			fmt.Fprintf(&b, "<setting name=%q>%s</setting>", s[0], s[1])
		}
		b.WriteString("</event>\n")
	}
	b.WriteString("</configuration>\n")
	return []byte(b.String())
}

// jdkFeature is the Java feature version in a VM.version line ("OpenJDK
// 64-Bit Server VM version 17.0.15+6-..." is 17), 0 when not found. JDK 8's
// HotSpot calls itself 25.x ("version 25.402-b06"), which is not JDK 25
// ("version 25+36-LTS", "version 25.0.1+8-LTS").
func jdkFeature(vmVersion string) int {
	_, v, ok := strings.Cut(vmVersion, " version ")
	if !ok {
		return 0
	}
	end := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(v)
	}
	n, err := strconv.Atoi(v[:end])
	if err != nil {
		return 0
	}
	if n == 25 && strings.HasPrefix(v[end:], ".") {
		if minor, rest, _ := strings.Cut(v[end+1:], "-"); rest != "" && strings.HasPrefix(rest, "b") && !strings.Contains(minor, ".") {
			return 8
		}
	}
	return n
}

// writeJFC writes the settings file at path (in the JVM's /tmp, reached
// through /proc/PID/root) for the JVM to read: created anew (never through
// a file or link already there), readable by the JVM's user.
func writeJFC(path string, body []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = f.Chmod(0o644) // whatever the umask: the JVM's user reads it
	if err == nil {
		_, err = f.Write(body)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
