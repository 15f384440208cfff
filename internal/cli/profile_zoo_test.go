//go:build e2e

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// Issue 15 on the zoo: `jvm PID --profile KIND` on a live, loaded zoo
// service must show that scenario's cause, read the way a user reads the
// profile (the printed top frames and the collapsed file), without naming
// the zoo's own frames: the lock profile's top lock is taken in the logging
// library, the allocation and CPU profiles' top application frame holds
// most of the profile, the wall profile shows the request threads waiting
// in socket reads (TestZooProfileWallSocketReads). One JVM at a time.

// Frames of the JDK, and of the libraries a zoo service runs on (server,
// logging, pool, database): what is left is the application's code.
var (
	jdkPrefixes     = []string{"java.", "javax.", "jdk.", "sun.", "com.sun."}
	libraryPrefixes = []string{"org.apache.", "ch.qos.logback.", "org.slf4j.", "com.zaxxer.", "org.h2.", "com.lmax."}
	loggingPrefixes = []string{"ch.qos.logback.", "org.apache.logging.log4j.", "org.apache.log4j.", "org.slf4j."}
)

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func jdkFrame(f string) bool { return hasAnyPrefix(f, jdkPrefixes) }

// appFrame: neither the JDK, a library, nor a marker leaf ("[park] ...").
func appFrame(f string) bool {
	return !jdkFrame(f) && !hasAnyPrefix(f, libraryPrefixes) && !strings.HasPrefix(f, "[")
}

// zooProfile is what one `jvm PID --profile KIND` left: the page printed
// as JSON and the profile read back from its collapsed file.
type zooProfile struct {
	page *report.FlamePage
	prof *stacks.Profile
	dir  string
	load *loadgen.Summary
}

// profileZoo starts scenario, loads it with users on 127.0.0.1 and, 2 s
// into the load, runs `jvm PID --profile kind -d d`; the load stops with
// the profile and the service when the test ends.
func profileZoo(t *testing.T, scenario, javaOpts string, users int, kind string, d time.Duration) *zooProfile {
	t.Helper()
	jar := needZoo(t)
	port := freePort(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := fmt.Sprintf("exec java %s -jar %s --scenario %s --port %d --log-dir %s --data-dir %s",
		javaOpts, jar, scenario, port, filepath.Join(dir, "logs"), filepath.Join(dir, "data"))
	svc, err := launch.Start(cmd, filepath.Join(dir, "service.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Stop)
	url := fmt.Sprintf("http://127.0.0.1:%d/api", port)
	if err := launch.WaitReady(ctx, url, 60*time.Second, svc); err != nil {
		t.Fatalf("%s: %v\n%s", scenario, err, svc.LogTail(2000))
	}
	pid := svc.WaitJVM(ctx, hostfs.Live(), 10*time.Second)
	if pid == 0 {
		t.Fatalf("%s: no JVM under the service", scenario)
	}
	// The load runs until the profile is done (bounded by a minute).
	lctx, stopLoad := context.WithCancel(ctx)
	done := make(chan *loadgen.Summary, 1)
	go func() {
		s, err := loadgen.Generate(lctx, loadgen.Config{Requests: []loadgen.Request{{URL: url}}, Users: users, Duration: time.Minute})
		if err != nil {
			t.Errorf("%s: load: %v", scenario, err)
		}
		done <- s
	}()
	select { // JIT warm-up before the recording
	case <-time.After(2 * time.Second):
	case s := <-done:
		t.Fatalf("%s: the load ended before the profile: %+v", scenario, s)
	}
	out := filepath.Join(dir, "profile")
	env, stdout, stderr := testEnv()
	o := &JVMOptions{PID: pid, Profile: kind, Duration: d, Out: out, Output: "json", Timeout: 10 * time.Second}
	err = RunJVM(ctx, env, o)
	stopLoad()
	load := <-done
	if err != nil {
		t.Fatalf("%s: jvm %d --profile %s: %v\n%s", scenario, pid, kind, err, stderr)
	}
	var page report.FlamePage
	if err := json.Unmarshal(stdout.Bytes(), &page); err != nil {
		t.Fatalf("%s: the printed page: %v", scenario, err)
	}
	for _, name := range []string{"profile.html", "profile.collapsed", "profile.pb.gz", "recording.jfr"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %s not written (%v)", scenario, name, err)
		}
	}
	f, err := os.Open(filepath.Join(out, "profile.collapsed"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prof, err := stacks.ReadCollapsed(f, stacks.Kind(kind))
	if err != nil {
		t.Fatalf("%s: profile.collapsed: %v", scenario, err)
	}
	if prof.Total <= 0 {
		t.Fatalf("%s: empty %s profile (notes %v) under a load of %d requests", scenario, kind, page.Notes, load.Requests)
	}
	t.Logf("%s: %s profile of %d events, total %d %s, under %.0f TPS; top self %v", scenario, kind, page.Events, page.Total, page.Unit, load.TPS, topFrames(page.BySelf, 5))
	return &zooProfile{page: &page, prof: prof, dir: out, load: load}
}

func topFrames(fs []stacks.FrameValue, n int) []string {
	var out []string
	for i, f := range fs {
		if i == n {
			break
		}
		out = append(out, fmt.Sprintf("%s=%d", f.Frame, f.Self))
	}
	return out
}

// share is one name's part of a profile (see rank).
type share struct {
	name  string
	value int64
}

// rank sums each sample's value under the name key gives it ("" leaves the
// sample out) and returns the names, biggest first.
func rank(p *stacks.Profile, key func(stack []string) string) []share {
	acc := map[string]int64{}
	for _, s := range p.Samples {
		if k := key(s.Stack); k != "" {
			acc[k] += s.Value
		}
	}
	var out []share
	for k, v := range acc {
		out = append(out, share{k, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].value != out[j].value {
			return out[i].value > out[j].value
		}
		return out[i].name < out[j].name
	})
	return out
}

// deepest is the frame nearest the leaf (below skip leaf frames) that ok
// accepts, or "".
func deepest(stack []string, skip int, ok func(string) bool) string {
	for i := len(stack) - 1 - skip; i >= 0; i-- {
		if ok(stack[i]) {
			return stack[i]
		}
	}
	return ""
}

func pct(v, total int64) float64 { return 100 * float64(v) / float64(max(total, 1)) }

func TestZooProfiles(t *testing.T) {
	needZoo(t)
	const d = 6 * time.Second
	start := time.Now()

	// The seeds' logging lock: the lock the request threads wait on most is
	// taken inside the logging library (the appender's), and the printed
	// top frame is that lock.
	t.Run("sync-logging/lock", func(t *testing.T) {
		z := profileZoo(t, "sync-logging", "", 32, "lock", d)
		// The leaf of a lock stack is the lock ("[park] CLASS"); its call site
		// is the first frame under it outside the JDK.
		locks := rank(z.prof, func(st []string) string { return st[len(st)-1] })
		top := locks[0]
		sites := rank(z.prof, func(st []string) string {
			if st[len(st)-1] != top.name {
				return ""
			}
			return deepest(st, 1, func(f string) bool { return !jdkFrame(f) })
		})
		t.Logf("top lock %s: %.0f%% of %d ns blocked; call sites %v", top.name, pct(top.value, z.prof.Total), z.prof.Total, sites[:min(3, len(sites))])
		if len(sites) == 0 || !hasAnyPrefix(sites[0].name, loggingPrefixes) {
			t.Errorf("the top lock %s is not taken in the logging library: call sites %v", top.name, sites)
		}
		if len(z.page.BySelf) == 0 || z.page.BySelf[0].Frame != top.name {
			t.Errorf("the printed top frame is not the lock the threads wait on most (%s): %v", top.name, topFrames(z.page.BySelf, 3))
		}
		logging := rank(z.prof, func(st []string) string {
			if site := deepest(st, 1, func(f string) bool { return !jdkFrame(f) }); hasAnyPrefix(site, loggingPrefixes) {
				return "logging"
			}
			return ""
		})
		if len(logging) == 0 || pct(logging[0].value, z.prof.Total) < 50 {
			t.Errorf("locks taken in the logging library hold %v of %d ns blocked, want most", logging, z.prof.Total)
		}
	})

	// GC pressure: an application frame (not the JDK, not the server)
	// allocates most of the bytes: the scenario's allocator.
	t.Run("gc-pressure/alloc", func(t *testing.T) {
		z := profileZoo(t, "gc-pressure", "-Xmx64m -Xms64m", 16, "alloc", d)
		// The leaf of an allocation stack is the allocated type: skipped.
		by := rank(z.prof, func(st []string) string { return deepest(st, 1, appFrame) })
		if len(by) == 0 {
			t.Fatalf("no application frame allocates: top %v", topFrames(z.page.BySelf, 5))
		}
		t.Logf("top allocating application frames: %v of %d bytes", by[:min(3, len(by))], z.prof.Total)
		if p := pct(by[0].value, z.prof.Total); p < 50 {
			t.Errorf("the top allocating application frame %s holds %.0f%% of the bytes, want most", by[0].name, p)
		}
	})

	// A hot method: the application frame nearest the CPU (the JDK code it
	// calls is its cost) holds a large share of the samples.
	t.Run("cpu-hot/cpu", func(t *testing.T) {
		z := profileZoo(t, "cpu-hot", "", 16, "cpu", d)
		by := rank(z.prof, func(st []string) string { return deepest(st, 0, appFrame) })
		if len(by) == 0 {
			t.Fatalf("no application frame on the CPU: top %v", topFrames(z.page.BySelf, 5))
		}
		t.Logf("top application frames on the CPU: %v of %d samples", by[:min(3, len(by))], z.prof.Total)
		if p := pct(by[0].value, z.prof.Total); p < 50 {
			t.Errorf("the top application frame %s holds %.0f%% of the CPU samples, want most", by[0].name, p)
		}
	})

	t.Logf("three profiles in %v", time.Since(start).Round(time.Second))
}

// The demo's differential flame graph, on real runs: `run` on sync-logging
// and on its fix (AsyncAppender), then `compare --flame-kind lock
// --flame-diff` of the two: the lock time spent under the logging library's
// frames, per request, must shrink.
func TestZooFlameDiffSyncLogging(t *testing.T) {
	z := zooRun{scenario: "sync-logging", users: 50, duration: 6 * time.Second, warmUp: 3 * time.Second}
	before := runZoo(t, z)
	z.fixed = true
	after := runZoo(t, z)
	page := filepath.Join(t.TempDir(), "flame-diff.html")
	env, out, stderr := testEnv()
	o := &CompareOptions{Output: "json", FlameDiff: page, FlameKind: "lock"}
	if err := RunCompareArgs(context.Background(), env, o, []string{before.Run.Dir, after.Run.Dir}, -1); err != nil {
		t.Fatalf("compare: %v\n%s", err, stderr)
	}
	validateJSON(t, compileSchema(t, "compare-v1.schema.json"), "compare-v1.schema.json", out.Bytes())
	var doc struct {
		FlameDiff *report.FlameDiffPage `json:"flame_diff"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	fd := doc.FlameDiff
	if fd == nil || fd.Kind != "lock" || fd.Norm != stacks.PerRequest {
		t.Fatalf("no per-request lock flame diff in compare's JSON: %+v", fd)
	}
	html, err := os.ReadFile(page)
	if err != nil || !bytes.Contains(html, []byte("default-src 'none'")) {
		t.Fatalf("the flame diff page is not written self-contained: %v", err)
	}
	// The tree of the same diff: the lock time under a frame of the logging
	// library, each stack counted once (at its outermost logging frame).
	side := func(p *report.RunPage) compare.FlameSide {
		s, err := compare.RunFlameSide([]compare.Input{{Path: p.Run.Dir, Page: p}}, stacks.Lock)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	dp, err := compare.NewFlameDiffPage(side(before), side(after), finding.EN)
	if err != nil {
		t.Fatal(err)
	}
	var b, a float64
	var walk func(n *stacks.DiffNode)
	walk = func(n *stacks.DiffNode) {
		if hasAnyPrefix(n.Name, loggingPrefixes) {
			b, a = b+n.Before, a+n.After
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(dp.Root)
	t.Logf("lock time under the logging library: %.0f -> %.0f ns per request (requests %d -> %d); shrank most: %v",
		b, a, fd.Before.Requests, fd.After.Requests, fd.Shrank[:min(3, len(fd.Shrank))])
	if b <= 0 {
		t.Fatalf("the sync-logging run's JFR holds no lock time under the logging library (shrank %v)", fd.Shrank)
	}
	if a > b/2 {
		t.Errorf("the AsyncAppender did not shrink the logging lock time per request: %.0f -> %.0f ns", b, a)
	}
	if len(fd.Shrank) == 0 || fd.Shrank[0].Delta >= 0 {
		t.Errorf("compare lists no frame that shrank: %v", fd.Shrank)
	}
}

// A remote that never answers (remote-call): the request threads' wall time
// is spent reading from the socket. A thread blocked in a socket read is
// RUNNABLE in native code (Net.poll under NioSocketImpl.timedRead), which
// JFR samples as jdk.NativeMethodSample (one such thread per 20 ms, in
// turn); the wall view reads those samples, each weighed as its period times
// the threads then in native code, so the reads must hold most of the
// request threads' wall time (measured 2026-11-25 before they were read: 0).
func TestZooProfileWallSocketReads(t *testing.T) {
	z := profileZoo(t, "remote-call", "", 32, "wall", 6*time.Second)
	socketRead := func(f string) bool {
		for _, s := range []string{"SocketInputStream.read", "NioSocketImpl.read", "NioSocketImpl.timedRead", "SocketDispatcher.read", "sun.nio.ch.Net.poll"} {
			if strings.Contains(f, s) {
				return true
			}
		}
		return false
	}
	// Among the threads of the application's requests (an application
	// frame on the stack), the share in socket reads.
	var app, reading int64
	for _, s := range z.prof.Samples {
		if deepest(s.Stack, 0, appFrame) == "" {
			continue
		}
		app += s.Value
		if deepest(s.Stack, 0, socketRead) != "" {
			reading += s.Value
		}
	}
	buf, err := os.ReadFile(filepath.Join(z.dir, "recording.jfr"))
	if err != nil {
		t.Fatal(err)
	}
	jp, err := stacks.JFRProfile(buf, stacks.Wall)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("request threads: %d %s on the wall, %.0f%% in socket reads (%d native samples)", app, z.page.Unit, pct(reading, app), jp.NativeEvents)
	if jp.NativeEvents == 0 || app == 0 || pct(reading, app) < 50 {
		t.Errorf("the wall profile does not show the request threads in socket reads: %d of %d %s (%d native samples; top %v)", reading, app, z.page.Unit, jp.NativeEvents, topFrames(z.page.BySelf, 5))
	}
	gap, _ := stacks.WallNativeGap()
	for _, n := range z.page.Notes {
		if n.EN == gap {
			t.Errorf("the wall view says it lacks threads in native code: %s", n.EN)
		}
	}
}
