package rules

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// jvmScenarios are JVMs that make every jvm.* rule recommend an option:
// together they reach every JAVA_OPTS change the knowledge base can write.
func jvmScenarios() map[string]mut {
	bad := func(j *sysinfo.JVM) {
		j.Options.XmsBytes, j.Options.GCLogging = 0, false
		delete(j.Options.Bools, "HeapDumpOnOutOfMemoryError")
		delete(j.Options.Bools, "UseTransparentHugePages")
	}
	return map[string]mut{
		"no xms, no logs, no dumps, no THP flag": jv(bad),
		"serial 4g":                              jv(func(j *sysinfo.JVM) { j.Options.GC = "Serial" }),
		"ergonomic serial in 1 CPU, no xmx":      all(container(16*gib, 1), jv(func(j *sysinfo.JVM) { j.Options.GC, j.Options.XmxBytes, j.Options.XmsBytes = "", 0, 0 })),
		"container, explicit thread counts": all(container(4*gib, 2), jv(func(j *sysinfo.JVM) {
			j.Options.Values["ParallelGCThreads"], j.Options.Values["CICompilerCount"] = "16", "12"
		})),
		"container, no xmx":  all(container(4*gib, 2), jv(func(j *sysinfo.JVM) { j.Options.XmxBytes, j.Options.XmsBytes = 0, 0 })),
		"host, no xmx":       jv(func(j *sysinfo.JVM) { j.Options.XmxBytes, j.Options.XmsBytes = 0, 0 }),
		"over the limit":     container(4*gib, 0),
		"parallel":           all(unbound, jv(func(j *sysinfo.JVM) { j.Options.GC = "Parallel" })),
		"CMS":                jv(func(j *sysinfo.JVM) { j.Options.GC = "CMS" }),
		"g1 small":           jv(func(j *sysinfo.JVM) { j.Options.XmxBytes, j.Options.XmsBytes = 256<<20, 256<<20 }),
		"g1 unbound":         unbound,
		"big stacks":         jv(func(j *sysinfo.JVM) { j.Threads, j.Options.XssBytes = 100000, 4<<20 }),
		"big stacks default": jv(func(j *sysinfo.JVM) { j.Threads = 100000 }),
	}
}

// recommendedOptions evaluates every rule, in every profile, on each
// scenario for a JVM of the given JDK and returns each JAVA_OPTS change
// the findings ask for (the added options only), deduplicated.
func recommendedOptions(t *testing.T, jdk func(j *sysinfo.JVM)) []string {
	t.Helper()
	seen := map[string]bool{}
	for name, m := range jvmScenarios() {
		for _, p := range Profiles {
			f := healthyHost()
			jdk(jvm0(f))
			m(f)
			for _, x := range Evaluate(All(), f, p) {
				if x.Category != "jvm" || x.Status != finding.Fail {
					continue
				}
				for _, line := range strings.Split(x.Fix.Apply, "\n") {
					if add := addedOptions(line); add != "" {
						if !seen[add] {
							t.Logf("%s [%s] %s: %s", name, p, x.ID, add)
						}
						seen[add] = true
					}
				}
			}
		}
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

var reJavaOpt = regexp.MustCompile(`(?:^|\s)(-X\S+)`)

// addedOptions returns the -X... options a Fix.Apply line adds
// ("JAVA_OPTS += A B", "JAVA_OPTS: OLD -> NEW"), joined by blanks.
func addedOptions(line string) string {
	line, _, _ = strings.Cut(line, "#")
	var add string
	switch {
	case strings.HasPrefix(line, "JAVA_OPTS += "):
		add = strings.TrimPrefix(line, "JAVA_OPTS += ")
	case strings.HasPrefix(line, "JAVA_OPTS: "):
		_, add, _ = strings.Cut(line, " -> ")
	default:
		return ""
	}
	var opts []string
	for _, m := range reJavaOpt.FindAllStringSubmatch(add, -1) {
		opts = append(opts, m[1])
	}
	return strings.Join(opts, " ")
}

// TestRecommendedOptionsStartRealJDKs starts each JDK installed here with
// every option set the knowledge base recommends for that JDK: a rule that
// recommends an option the JDK refuses (or ignores with a warning) fails.
func TestRecommendedOptionsStartRealJDKs(t *testing.T) {
	jdks := []struct {
		java, version, home string
	}{
		{"java", "", ""}, // the JDK on PATH (17 on the build VM): its version is asked
		{"/usr/lib/jvm/temurin-25-jdk-amd64/bin/java", "", "/usr/lib/jvm/temurin-25-jdk-amd64"},
	}
	for _, jd := range jdks {
		bin, err := exec.LookPath(jd.java)
		if err != nil {
			t.Logf("%s not installed: skipped", jd.java)
			continue
		}
		out, err := exec.Command(bin, "-XshowSettings:properties", "-version").CombinedOutput()
		if err != nil {
			t.Fatalf("%s -version: %v\n%s", bin, err, out)
		}
		ver := regexp.MustCompile(`java\.version = (\S+)`).FindSubmatch(out)
		if ver == nil {
			t.Fatalf("%s: no java.version in\n%s", bin, out)
		}
		version := string(ver[1])
		t.Run("JDK "+version, func(t *testing.T) {
			opts := recommendedOptions(t, func(j *sysinfo.JVM) {
				j.Version, j.VersionFrom, j.JavaHome, j.Exe = version, string(jvmopts.SourceRelease), filepath.Dir(filepath.Dir(bin)), bin
			})
			joined := strings.Join(opts, "\n")
			for _, want := range []string{"-Xlog:gc", "-XX:+HeapDumpOnOutOfMemoryError", "-XX:+UseG1GC", "-XX:+UseSerialGC", "-XX:MaxRAMPercentage", "-Xss"} {
				if !strings.Contains(joined, want) {
					t.Errorf("no recommendation holds %s: the scenarios no longer reach every rule\n%s", want, joined)
				}
			}
			logDir := t.TempDir()
			for _, o := range opts {
				args := strings.Fields(strings.ReplaceAll(o, "/var/log/java/", logDir+"/"))
				for i, a := range args {
					// Sizes are the host's business, not the JDK's: keep the
					// option, at a size this machine can reserve.
					for _, p := range []string{"-Xms", "-Xmx"} {
						if strings.HasPrefix(a, p) {
							args[i] = p + "64m"
						}
					}
				}
				start := time.Now()
				cmd := exec.Command(bin, append(args, "-version")...)
				cmd.Dir = logDir
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Errorf("JDK %s refuses the recommended %q: %v\n%s", version, o, err, out)
					continue
				}
				if bad := regexp.MustCompile(`(?i)Unrecognized|Ignoring option|deprecated|obsolete|Invalid`).Find(out); bad != nil {
					t.Errorf("JDK %s warns about the recommended %q (%s):\n%s", version, o, bad, out)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Logf("%q took %v", o, d)
				}
			}
			_ = os.RemoveAll(logDir)
		})
	}
}

// The version the recommendations are written for decides their form.
func TestJVMRecommendationsFollowTheJDK(t *testing.T) {
	apply := func(id string, p Profile, m mut) finding.Finding {
		t.Helper()
		f := healthyHost()
		m(f)
		for _, x := range Evaluate(All(), f, p) {
			if x.ID == id {
				return x
			}
		}
		t.Fatalf("no %s", id)
		return finding.Finding{}
	}
	noLog := func(version, home string, opts ...string) mut {
		return jv(func(j *sysinfo.JVM) {
			j.Options.GCLogging = false
			j.Version, j.JavaHome, j.Exe = version, home, ""
			for _, o := range opts {
				j.Options.Bools[o] = true
				if o == "UseZGC" {
					j.Options.GC = "ZGC"
				}
			}
		})
	}
	jdk8 := []string{"-XX:+PrintGCDetails", "-XX:+UseGCLogFileRotation", "-XX:+PrintGCDateStamps"}
	cases := []struct {
		name       string
		m          mut
		modern, j8 bool
	}{
		{"JDK 17 release", noLog("17.0.15", "/usr/lib/jvm/java-17-openjdk"), true, false},
		{"JDK 8 release", noLog("1.8.0_392", "/usr/lib/jvm/java-1.8.0-openjdk"), false, true},
		{"unknown, ZGC => 11+", noLog("", "", "UseZGC"), true, false},
		{"unknown, JDK 8 flags => 8", noLog("", "", "PrintGCApplicationStoppedTime"), false, true},
		{"unknown: both, labelled", noLog("", ""), true, true},
		{"--jdk 21 over a JDK 8 path", all(noLog("", "/opt/jdk1.8.0_181"), jv(func(j *sysinfo.JVM) { j.Options.JDKGiven = 21 })), true, false},
	}
	for _, c := range cases {
		f := apply("jvm.gc.logging", JavaWeb, c.m)
		if f.Status != finding.Fail {
			t.Fatalf("%s: %s", c.name, f.Status)
		}
		a := f.Fix.Apply
		if got := strings.Contains(a, "-Xlog:gc*"); got != c.modern {
			t.Errorf("%s: -Xlog form %v, want %v: %q", c.name, got, c.modern, a)
		}
		for _, o := range jdk8 {
			if got := strings.Contains(a, o); got != c.j8 {
				t.Errorf("%s: %s %v, want %v: %q", c.name, o, got, c.j8, a)
			}
		}
		if c.modern && c.j8 {
			if !strings.Contains(a, "# JDK 9+") || !strings.Contains(a, "# JDK 8") || !strings.Contains(f.Recommended.EN, "JDK version unknown") || !strings.Contains(f.Recommended.ZH, "JDK 版本未知") {
				t.Errorf("%s: both forms must be labelled: %q / %q", c.name, a, f.Recommended.EN)
			}
		}
		if f.EvidenceValue("jdk") == "" {
			t.Errorf("%s: no jdk evidence", c.name)
		}
	}
	// The low-pause collector follows the release: generational ZGC by flag
	// on 21, by default from 23 (the flag is gone in 24), G1 before.
	for version, want := range map[string]string{"1.8.0_392": "-XX:+UseG1GC -XX:MaxGCPauseMillis=100", "17.0.15": "-XX:+UseG1GC -XX:MaxGCPauseMillis=100",
		"21.0.2": "-XX:+UseZGC -XX:+ZGenerational", "25.0.3": "-XX:+UseZGC"} {
		f := apply("jvm.gc.parallel-latency", Latency, jv(func(j *sysinfo.JVM) { j.Options.GC, j.Version = "Parallel", version }))
		if !strings.HasSuffix(f.Fix.Apply, "-> "+want) {
			t.Errorf("JDK %s latency collector: %q, want %q", version, f.Fix.Apply, want)
		}
	}
	// MaxRAMPercentage only where it exists (8u191+, 10+).
	f := apply("jvm.heap.no-xmx", JavaWeb, all(container(4*gib, 2), jv(func(j *sysinfo.JVM) {
		j.Options.XmxBytes, j.Options.XmsBytes, j.Version = 0, 0, "1.8.0_152"
	})))
	if strings.Contains(f.Fix.Apply, "RAMPercentage") || !strings.Contains(f.Fix.Apply, "-Xmx3g") {
		t.Errorf("JDK 8u152 in a container: %q", f.Fix.Apply)
	}
}
