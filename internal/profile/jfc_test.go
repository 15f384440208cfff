package profile

import (
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/stacks"
)

func TestJDKFeature(t *testing.T) {
	for in, want := range map[string]int{
		"OpenJDK 64-Bit Server VM version 17.0.15+6-Ubuntu-0ubuntu124.04": 17,
		"OpenJDK 64-Bit Server VM version 25.0.1+8-LTS":                   25,
		"OpenJDK 64-Bit Server VM version 25+36-LTS":                      25,
		"OpenJDK 64-Bit Server VM version 11.0.24+8-post-Debian-1deb12u1": 11,
		"OpenJDK 64-Bit Server VM version 25.402-b06":                     8, // JDK 8's HotSpot
		"Java HotSpot(TM) 64-Bit Server VM version 25.202-b08":            8,
		"OpenJDK 64-Bit Server VM version 16.0.2+7":                       16,
		"Eclipse OpenJ9 VM": 0,
	} {
		if got := jdkFeature(in); got != want {
			t.Errorf("%q: %d, want %d", in, got, want)
		}
	}
}

// The settings file is JFR's XML with the kind's events only: allocation
// samples from JDK 16, the TLAB events before.
func TestJFCHoldsTheKindsEvents(t *testing.T) {
	type setting struct {
		Name  string `xml:"name,attr"`
		Value string `xml:",chardata"`
	}
	type config struct {
		Events []struct {
			Name     string    `xml:"name,attr"`
			Settings []setting `xml:"setting"`
		} `xml:"event"`
	}
	for _, c := range []struct {
		kind stacks.Kind
		jdk  int
		want string
	}{
		{stacks.CPU, 17, "jdk.ActiveSetting jdk.ExecutionSample jdk.NativeMethodSample"},
		{stacks.Alloc, 17, "jdk.ActiveSetting jdk.ObjectAllocationSample"},
		{stacks.Alloc, 0, "jdk.ActiveSetting jdk.ObjectAllocationSample"},
		{stacks.Alloc, 11, "jdk.ActiveSetting jdk.ObjectAllocationInNewTLAB jdk.ObjectAllocationOutsideTLAB"},
		{stacks.Alloc, 8, "jdk.ActiveSetting jdk.ObjectAllocationInNewTLAB jdk.ObjectAllocationOutsideTLAB"},
		{stacks.Lock, 25, "jdk.ActiveSetting jdk.JavaMonitorEnter jdk.ThreadPark"},
		{stacks.Wall, 25, "jdk.ActiveSetting jdk.ExecutionSample jdk.JavaMonitorEnter jdk.NativeMethodSample jdk.ThreadPark"},
	} {
		var cf config
		if err := xml.Unmarshal(jfc(c.kind, c.jdk), &cf); err != nil {
			t.Fatalf("%s %d: %v\n%s", c.kind, c.jdk, err, jfc(c.kind, c.jdk))
		}
		var names []string
		for _, e := range cf.Events {
			names = append(names, e.Name)
			on := false
			for _, s := range e.Settings {
				on = on || s.Name == "enabled" && s.Value == "true"
				if s.Name == "threshold" && s.Value != "1 ms" || s.Name == "period" && s.Value != "20 ms" {
					t.Errorf("%s: %s %s = %q", c.kind, e.Name, s.Name, s.Value)
				}
			}
			if !on {
				t.Errorf("%s: %s not enabled", c.kind, e.Name)
			}
		}
		sort.Strings(names)
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("%s on JDK %d: %s, want %s", c.kind, c.jdk, got, c.want)
		}
	}
}

// eventCounts lists a recording's event types with at least one event, as
// the JDK's own jfr tool counts them.
func eventCounts(t *testing.T, jfrTool string, rec []byte) map[string]int {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.jfr")
	if err := os.WriteFile(path, rec, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(jfrTool, "summary", path).CombinedOutput()
	if err != nil {
		t.Fatalf("jfr summary: %v\n%s", err, out)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && strings.Contains(f[0], ".") {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				counts[f[0]] = n
			}
		}
	}
	return counts
}

// On real JDK 17 and 25, each kind records its own events and little else:
// a CPU profile no longer holds what the profile settings add (old object
// samples, socket and file I/O, allocation samples, class loading, GC
// phases, thread CPU load, ...).
func TestCaptureRecordsOnlyTheKindsEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("starts JVMs")
	}
	// What any recording holds besides events: its pools and metadata.
	always := map[string]bool{"jdk.Checkpoint": true, "jdk.CheckPoint": true, "jdk.Metadata": true} // (JDK 17's jfr spells it CheckPoint)
	for _, home := range []string{"/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/temurin-25-jdk-amd64"} {
		java, tool := filepath.Join(home, "bin/java"), filepath.Join(home, "bin/jfr")
		if _, err := os.Stat(tool); err != nil {
			t.Logf("%s: no JDK there", home)
			continue
		}
		pid := startService(t, java)
		// Each entry of want is a set of event types of which at least one
		// must hold events: whether a 2 s window catches a monitor held
		// over the 1 ms threshold by a waiter, or only parks, is up to the
		// JVM's scheduling (JDK 25 once recorded parks only).
		for _, c := range []struct {
			kind stacks.Kind
			want [][]string
		}{
			{stacks.CPU, [][]string{{"jdk.ExecutionSample"}}},
			{stacks.Alloc, [][]string{{"jdk.ObjectAllocationSample"}}},
			{stacks.Lock, [][]string{{"jdk.JavaMonitorEnter", "jdk.ThreadPark"}}},
			{stacks.Wall, [][]string{{"jdk.ExecutionSample"}, {"jdk.JavaMonitorEnter", "jdk.ThreadPark"}}},
		} {
			res, err := Capture(context.Background(), pid, c.kind, 2*time.Second, Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", home, c.kind, err)
			}
			counts := eventCounts(t, tool, res.JFR)
			t.Logf("%s %s: %d bytes, %v; %s", filepath.Base(home), c.kind, len(res.JFR), counts, res.Command)
			if !strings.Contains(res.Command, "settings=/tmp/"+RecordingName) || !strings.HasSuffix(strings.Fields(res.Command)[2], ".jfc") {
				t.Errorf("%s: not recorded with its own settings: %s (notes %v)", c.kind, res.Command, res.Notes)
			}
			allowed := map[string]bool{"jdk.ActiveSetting": true}
			for _, e := range kindEvents(c.kind, 17) {
				allowed[e.name] = true
			}
			for _, oneOf := range c.want {
				n := 0
				for _, e := range oneOf {
					n += counts[e]
				}
				if n == 0 {
					t.Errorf("%s %s: no %s events (%v)", filepath.Base(home), c.kind, strings.Join(oneOf, " or "), counts)
				}
			}
			for e, n := range counts {
				if !allowed[e] && !always[e] {
					t.Errorf("%s %s: %d %s events, not the kind's", filepath.Base(home), c.kind, n, e)
				}
			}
			if c.kind == stacks.CPU && (counts["jdk.OldObjectSample"] > 0 || counts["jdk.SocketRead"] > 0) {
				t.Errorf("cpu: old object or socket read events recorded")
			}
			if res.Profile == nil || res.Profile.Events == 0 {
				t.Errorf("%s %s: an empty profile", filepath.Base(home), c.kind)
				continue
			}
			// The wall view weighs a CPU sample as the recording's own
			// period (20 ms here; 10 ms is the reader's default).
			for _, s := range res.Profile.Samples {
				if c.kind == stacks.Wall && s.Stack[len(s.Stack)-1] == "Svc.burn" && s.Value != int64(s.Events)*20e6 {
					t.Errorf("%s wall: %d CPU samples in Svc.burn weigh %d ns, want 20 ms each", filepath.Base(home), s.Events, s.Value)
				}
			}
		}
		// The settings file and the recording are gone from the JVM's /tmp.
		if left := leftBehind(pid); len(left) != 0 {
			t.Errorf("left behind: %v", left)
		}
	}
}

// A JVM that refuses the settings file records with the profile settings,
// and the result says so in both languages.
func TestCaptureFallsBackToProfileSettings(t *testing.T) {
	pid := startService(t, javaOnPath(t))
	res, err := Capture(context.Background(), pid, stacks.CPU, time.Second, Options{jfc: []byte("<configuration><event")})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s; notes %v", res.Command, res.Notes)
	if !strings.Contains(res.Command, "settings=profile") {
		t.Errorf("not recorded with the profile settings: %s", res.Command)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0].EN, "'profile' settings") || !strings.Contains(res.Notes[0].ZH, "profile 设置") {
		t.Errorf("notes %v", res.Notes)
	}
	if f, _ := leader(res.Profile, "Svc.burn", "Svc.allocate", "Svc.holdGate"); res.Profile == nil || f != "Svc.burn" {
		t.Errorf("the fallback recording's profile: %+v", res.Profile)
	}
	if left := leftBehind(pid); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
