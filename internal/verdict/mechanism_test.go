package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/mechanism"
)

// TestVerdictNamesTheMechanismAndItsCodeLine: on real recorded runs, the
// verdict names the mechanism an engineer would, with an application code
// line (never a JDK or library frame) and what it rests on.
func TestVerdictNamesTheMechanismAndItsCodeLine(t *testing.T) {
	for _, c := range []struct{ run, mech string }{
		{"sync-logging", "mech.logging.logback-sync"},
		{"sync-logging-jfr", "mech.logging.logback-sync"},
		{"pool-starvation", "mech.pool.jdbc-exhausted"},
		{"fsync-io", "mech.lock.io-under-lock"},
	} {
		t.Run(c.run, func(t *testing.T) {
			L, err := Load(filepath.Join("testdata", "runs", c.run))
			if err != nil {
				t.Fatal(err)
			}
			d := Decide(L)
			if d.Verdict == nil || len(d.Mechanisms) == 0 {
				t.Fatalf("no mechanism named (branch %s)", d.Branch)
			}
			if got := d.Verdict.EvidenceValue("mechanism"); got != c.mech {
				t.Fatalf("mechanism %s, want %s (%s)", got, c.mech, d.Verdict.Observed.EN)
			}
			code := d.Verdict.EvidenceValue("code")
			if code == "" || mechanism.IsLibrary(code) {
				t.Errorf("code line %q is not the application's", code)
			}
			if d.Verdict.EvidenceValue("support") == "" || !strings.Contains(d.Verdict.Recommended.EN, code) {
				t.Errorf("the fix must name the code line and the verdict its support: %+v", d.Verdict)
			}
			if n := d.Mechanisms[0]; n.Match.Share < 0.3 {
				t.Errorf("share %.2f: a root cause of these runs takes most of the threads' time", n.Match.Share)
			}
		})
	}
}

// TestVerdictNeverSendsToAToolWhoseEvidenceTheRunHolds: every recorded run
// with dumps or a JFR recording: the verdict's advice points to the
// report's own sections, not to jstack, async-profiler or another dump.
func TestVerdictNeverSendsToAToolWhoseEvidenceTheRunHolds(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("testdata", "runs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range dirs {
		if !de.IsDir() {
			continue
		}
		L, err := Load(filepath.Join("testdata", "runs", de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		d := Decide(L)
		if d.Verdict == nil || (len(L.Dumps) == 0 && L.Stacks == nil) {
			continue
		}
		for _, s := range []string{d.Verdict.Recommended.EN, d.Verdict.Recommended.ZH, d.Verdict.Fix.Apply, d.Verdict.Fix.Note.EN} {
			for _, tool := range []string{"async-profiler", "asprof", "jstack", "--dump", "jcmd"} {
				if strings.Contains(s, tool) {
					t.Errorf("%s: the verdict advises %s although the run holds the evidence: %q", de.Name(), tool, s)
				}
			}
		}
	}
}

// TestVerdictOnAServiceWrittenForTheTest: the JDK's own HTTP server,
// written fresh (testdata/java/TariffService.java): the delayed ACK gets
// the server's own property as its fix; with it set, the class-level lock
// around CPU work is named at its line.
func TestVerdictOnAServiceWrittenForTheTest(t *testing.T) {
	L, err := Load(filepath.Join("testdata", "runs", "jdkhttp-delayed-ack"))
	if err != nil {
		t.Fatal(err)
	}
	d := Decide(L)
	if d.Branch != DelayedACK || d.Verdict.EvidenceValue("mechanism") != "mech.net.delayed-ack" ||
		!strings.Contains(d.Verdict.Fix.Apply, "sun.net.httpserver.nodelay") {
		t.Errorf("delayed ACK on the JDK server: branch %s, %q, fix %q", d.Branch, d.Verdict.EvidenceValue("mechanism"), d.Verdict.Fix.Apply)
	}
	L, err = Load(filepath.Join("testdata", "runs", "jdkhttp-class-lock"))
	if err != nil {
		t.Fatal(err)
	}
	d = Decide(L)
	if got := d.Verdict.EvidenceValue("mechanism"); got != "mech.lock.class-cpu" {
		t.Fatalf("mechanism %s, want mech.lock.class-cpu (%s)", got, d.Verdict.Observed.EN)
	}
	if code := d.Verdict.EvidenceValue("code"); !strings.HasPrefix(code, "TariffService.rate") {
		t.Errorf("code line %q: the static synchronized method is TariffService.rate", code)
	}
}

// TestStalledServiceGetsTheMechanismItsThreadsShow: a Spring Boot service
// that stopped answering, whose dumps' findings named no culprit, gets the
// mechanism its threads' time shows, with the code line and its fix.
func TestStalledServiceGetsTheMechanismItsThreadsShow(t *testing.T) {
	L, err := Load(filepath.Join("testdata", "runs", "spring-class-lock-stalled"))
	if err != nil {
		t.Fatal(err)
	}
	d := Decide(L)
	if d.Branch != ServiceStalled || d.Verdict == nil {
		t.Fatalf("branch %s", d.Branch)
	}
	v := d.Verdict
	if got := v.EvidenceValue("mechanism"); got != "mech.lock.class-cpu" {
		t.Fatalf("mechanism %q (%s)", got, v.Observed.EN)
	}
	if code := v.EvidenceValue("code"); code == "" || mechanism.IsLibrary(code) || !strings.Contains(v.Recommended.EN, code) {
		t.Errorf("code %q, fix %q", code, v.Recommended.EN)
	}
	if !strings.Contains(v.Title.EN, "stopped answering") || strings.Contains(v.Observed.EN, "nothing in them names a culprit") {
		t.Errorf("the headline says it stalled, the seen lines do not deny a culprit: %q / %q", v.Title.EN, v.Observed.EN)
	}
}

// TestJVMThreadsAreNotTheHotThreadOfAUserBoundVerdict: on cpu-hot the C2
// compiler is the busiest single thread by /proc, but fifty request
// workers at a few percent each are the service's CPU: the saturated-CPU
// finding names a request worker, with its role, and says nothing of
// compiler threads as the cause.
func TestJVMThreadsAreNotTheHotThreadOfAUserBoundVerdict(t *testing.T) {
	L, err := Load(filepath.Join("testdata", "runs", "cpu-hot"))
	if err != nil {
		t.Fatal(err)
	}
	if len(L.Stats.Top) == 0 || !strings.Contains(L.Stats.Top[0].Name, "Compiler") {
		t.Fatalf("the fixture's busiest thread should be a JIT compiler: %+v", L.Stats.Top)
	}
	d := Decide(L)
	for _, f := range d.Findings {
		if !strings.Contains(f.Observed.EN, "Hottest thread") {
			continue
		}
		if strings.Contains(f.Observed.EN, "CompilerThre") || !strings.Contains(f.Observed.EN, "(request-worker)") ||
			strings.Contains(f.Recommended.EN, "JIT compiler thread") {
			t.Errorf("%s: %s / %s", f.ID, f.Observed.EN, f.Recommended.EN)
		}
	}
}

// TestQueueOnALibraryLockUnderSaturatedCPUsIsASymptom: workers of the JDK's
// HTTP server queue on the server's own lock while the CPUs are saturated
// by the handler's computation: the cause named is the CPU work at its
// line, never an application lock.
func TestQueueOnALibraryLockUnderSaturatedCPUsIsASymptom(t *testing.T) {
	L, err := Load(filepath.Join("testdata", "runs", "jdkhttp-cpu-saturated"))
	if err != nil {
		t.Fatal(err)
	}
	d := Decide(L)
	if d.Branch != CPUSaturated {
		t.Fatalf("branch %s: %s", d.Branch, d.Verdict.Title.EN)
	}
	if m := d.Verdict.EvidenceValue("mechanism"); !strings.HasPrefix(m, "mech.cpu.") {
		t.Errorf("mechanism %q", m)
	}
	if code := d.Verdict.EvidenceValue("code"); !strings.HasPrefix(code, "QuoteEngine.price") {
		t.Errorf("code %q: the CPU goes to QuoteEngine.price", code)
	}
	if strings.Contains(d.Verdict.Title.EN, "application lock") {
		t.Errorf("title %q", d.Verdict.Title.EN)
	}
}
