package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// The bottleneck zoo end to end: `tuneloop run` starts each zoo service,
// loads it on 127.0.0.1, records it and must name the true root cause as its
// verdict. The jar comes from `make zoo` (make test builds it first).

const zooJar = "../../zoo/target/zoo.jar"

func needZoo(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("zoo end-to-end tests are long; skipped with -short")
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java on PATH")
	}
	jar, err := filepath.Abs(zooJar)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(jar); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing in CI: make test must build the zoo first", jar)
		}
		t.Skipf("%s not built: run make zoo", jar)
	}
	return jar
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

type zooRun struct {
	scenario string
	fixed    bool
	javaOpts string
	zooArgs  string
	users    int
	rate     float64
	duration time.Duration
}

// runZoo runs one scenario under `tuneloop run` and returns its report page.
func runZoo(t *testing.T, z zooRun) *report.RunPage {
	t.Helper()
	jar := needZoo(t)
	port := freePort(t)
	dir := t.TempDir()
	fixed := ""
	if z.fixed {
		fixed = "--fixed"
	}
	start := fmt.Sprintf("exec java %s -jar %s --scenario %s %s --port %d --log-dir %s --data-dir %s %s",
		z.javaOpts, jar, z.scenario, fixed, port, filepath.Join(dir, "logs"), filepath.Join(dir, "data"), z.zooArgs)
	if z.duration == 0 {
		z.duration = 8 * time.Second
	}
	env, out, errb := testEnv()
	o := &RunOptions{Target: fmt.Sprintf("http://127.0.0.1:%d/api", port), Users: z.users, Rate: z.rate, Duration: z.duration,
		WarmUp: 2 * time.Second, Interval: 500 * time.Millisecond, DumpEvery: 2 * time.Second, Start: start,
		StartTimeout: 90 * time.Second, Out: filepath.Join(dir, "run"), Output: "json", Profile: "java-web",
		NoCatalog: true, Quiet: true, Argv: []string{"tuneloop", "run", z.scenario}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := RunRun(ctx, env, o); err != nil {
		t.Fatalf("%s: %v\n%s", z.scenario, err, errb)
	}
	var p report.RunPage
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatalf("%s: %v", z.scenario, err)
	}
	for _, name := range []string{"report.html", "report.md", "report.json", "load.json", "check.json"} {
		if _, err := os.Stat(filepath.Join(o.Out, name)); err != nil {
			t.Errorf("%s: %s not written: %v", z.scenario, name, err)
		}
	}
	return &p
}

// verdictOn asserts the verdict names a root cause whose finding key starts
// with prefix.
func verdictOn(t *testing.T, p *report.RunPage, prefix string) *finding.Finding {
	t.Helper()
	if p.Verdict == nil {
		t.Fatalf("no verdict; findings: %v", pageKeys(p))
	}
	if !strings.HasPrefix(p.Verdict.Subject, prefix) {
		t.Fatalf("verdict is %q (%s), want %s...; findings: %v", p.Verdict.Subject, p.Verdict.Title.EN, prefix, pageKeys(p))
	}
	if p.Run.Findings[0].ID != verdictID {
		t.Errorf("the verdict is not ranked first: %s", p.Run.Findings[0].ID)
	}
	return p.Verdict
}

func pageKeys(p *report.RunPage) []string {
	var out []string
	for _, f := range p.Run.Findings {
		if f.Status == finding.Fail {
			out = append(out, f.Key()+"("+f.Severity.String()+")")
		}
	}
	return out
}

// The seeds' case: synchronous logback logging. The verdict names the
// appender lock with the AsyncAppender fix, says GC is not the problem, and
// the fixed variant (exactly that fix) serves clearly more.
func TestZooSyncLogging(t *testing.T) {
	before := runZoo(t, zooRun{scenario: "sync-logging", users: 50})
	v := verdictOn(t, before, "threaddump.lock.logback")
	if !strings.Contains(v.Fix.Apply, "AsyncAppender") || v.Risk.EN == "" {
		t.Errorf("fix is not the AsyncAppender with its trade-off: %q", v.Fix.Apply)
	}
	if !strings.Contains(v.Observed.EN, "GC is not the bottleneck") {
		t.Errorf("the verdict does not clear GC:\n%s", v.Observed.EN)
	}
	after := runZoo(t, zooRun{scenario: "sync-logging", fixed: true, users: 50})
	if before.Load.TPS <= 0 || after.Load.TPS < 1.5*before.Load.TPS {
		t.Errorf("the recommended fix did not raise TPS clearly: %.0f -> %.0f", before.Load.TPS, after.Load.TPS)
	}
	t.Logf("sync-logging TPS %.0f -> %.0f with AsyncAppender (x%.1f)", before.Load.TPS, after.Load.TPS, after.Load.TPS/before.Load.TPS)
}

func TestZooDeadlock(t *testing.T) {
	p := runZoo(t, zooRun{scenario: "deadlock", users: 50, zooArgs: "--deadlock-after 50"})
	verdictOn(t, p, "threaddump.deadlock")
}

func TestZooPoolStarvation(t *testing.T) {
	p := runZoo(t, zooRun{scenario: "pool-starvation", users: 50})
	v := verdictOn(t, p, "threaddump.jdbc-pool.hikaricp")
	if !strings.Contains(v.Recommended.EN+v.Fix.Apply, "maximum-pool-size") {
		t.Errorf("HikariCP fix not in its own words: %s / %s", v.Recommended.EN, v.Fix.Apply)
	}
}

func TestZooSingleThreadStage(t *testing.T) {
	p := runZoo(t, zooRun{scenario: "single-thread", users: 50})
	v := verdictOn(t, p, "run.thread.serial-bottleneck")
	if !strings.Contains(v.Observed.EN, "order-sequencer") {
		t.Errorf("the serial thread is not named:\n%s", v.Observed.EN)
	}
}

func TestZooFsyncIO(t *testing.T) {
	p := runZoo(t, zooRun{scenario: "fsync-io", users: 50})
	v := verdictOn(t, p, "threaddump.lock.app")
	if !strings.Contains(v.Observed.EN, "Journal") || !strings.Contains(v.Observed.EN, "force") {
		t.Errorf("the journal lock and its fsyncing holder are not named:\n%s", v.Observed.EN)
	}
}

func TestZooGCPressure(t *testing.T) {
	p := runZoo(t, zooRun{scenario: "gc-pressure", users: 50, javaOpts: "-Xmx64m -Xms64m"})
	verdictOn(t, p, "gc.")
	if p.GC == nil || p.GC.ThroughputPct >= 95 {
		t.Errorf("GC view missing or GC not heavy: %+v", p.GC)
	}
}

func TestZooCPUHot(t *testing.T) {
	p := runZoo(t, zooRun{scenario: "cpu-hot", users: 50})
	verdictOn(t, p, "run.cpu.saturated")
	if p.Flame == nil || !flameHas(p.Flame, "com.example.zoo.PriceCalculator.computeChecksum") {
		t.Error("the hot method is not in the flame graph of the dumps")
	}
}

// The healthy service at a moderate open-model rate: no critical finding
// from the run (host audit findings are about the host, not the run).
func TestZooHealthy(t *testing.T) {
	p := runZoo(t, zooRun{scenario: "healthy", rate: 200})
	for _, f := range p.Run.Findings {
		if f.Status == finding.Fail && f.Severity == finding.Critical {
			t.Errorf("critical finding on the healthy service: %s: %s", f.Key(), f.Observed.EN)
		}
	}
	if p.Load.Errors != 0 || p.Load.Requests < 1000 {
		t.Errorf("healthy load: %d requests, %d errors", p.Load.Requests, p.Load.Errors)
	}
}

func flameHas(n *report.FlameNode, name string) bool {
	if strings.HasPrefix(n.Name, name) {
		return true
	}
	for _, c := range n.Children {
		if flameHas(c, name) {
			return true
		}
	}
	return false
}
