package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// realProbe runs `tuneloop probe --quick --only PARTS` of this machine into
// a folder under root and returns the folder.
func realProbe(t *testing.T, root, parts string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("measures this machine")
	}
	dir := filepath.Join(root, "20261128T070000Z-here")
	env, _, errb := testEnv()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := RunProbe(ctx, env, &ProbeOptions{Output: "json", Out: dir, Quick: true, Only: parts, Sizes: "1", Dir: t.TempDir(), NoCatalog: true}); err != nil {
		t.Fatalf("probe: %v\n%s", err, errb.String())
	}
	return dir
}

func checkFindings(t *testing.T, o CheckOptions) ([]finding.Finding, string) {
	t.Helper()
	env, out, errb := testEnv()
	o.Output, o.Now, o.Profile = "json", fixedNow, "java-web"
	isolated(t, &o)
	if o.Root == "" {
		o.ProcRoot, o.SysRoot, o.EtcRoot = "/proc", "/sys", "/etc"
	}
	if err := RunCheck(context.Background(), env, &o); err != nil {
		var ee *ExitError
		if !(asExit(err, &ee) && ee.Code == ExitFindings) {
			t.Fatalf("check: %v\n%s", err, errb.String())
		}
	}
	var doc struct {
		Findings []finding.Finding `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Findings, errb.String()
}

func findingByID(fs []finding.Finding, id string) *finding.Finding {
	for i := range fs {
		if fs[i].ID == id {
			return &fs[i]
		}
	}
	return nil
}

// TestCheckCitesProbe: a real probe of this machine's CPU costs is cited by
// the live audit's mitigations finding (when this kernel reports some as
// vulnerable or mitigated: that finding then fails), found by --probe and
// by looking under the probe root; a probe of another host is refused.
func TestCheckCitesProbe(t *testing.T) {
	root := t.TempDir()
	dir := realProbe(t, root, "cpu")
	r, _, err := probe.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc := r.Figure("cpu.syscall")
	if sc == nil || len(sc.Rounds) == 0 {
		t.Skip("no system call figure measured")
	}
	for _, o := range []CheckOptions{{Probe: dir, ProbeRoot: t.TempDir()}, {ProbeRoot: root}} {
		fs, stderr := checkFindings(t, o)
		if !strings.Contains(stderr, "platform figures from the probe "+filepath.Join(dir, probe.File)) {
			t.Errorf("stderr does not say which probe is used: %q", stderr)
		}
		m := findingByID(fs, "security.mitigations")
		if m == nil || m.Status != finding.Fail {
			t.Skipf("security.mitigations does not fail on this host (%v): nothing to cite", m)
		}
		got := m.EvidenceValue("probe cpu.syscall")
		if !strings.Contains(got, " ns (") || !strings.Contains(got, "rounds") {
			t.Fatalf("mitigations does not cite the probe's syscall cost: %+v", m.Evidence)
		}
		var med float64
		if _, err := fmt.Sscan(got, &med); err != nil || math.Abs(med-sc.Median) > 0.001*sc.Median+0.01 {
			t.Errorf("cited %q, the probe measured %v", got, sc.Median)
		}
		if !strings.Contains(m.Why.EN, "Probe: ") || !strings.Contains(m.Why.ZH, "探测：") {
			t.Errorf("why does not say the measured cost: %q / %q", m.Why.EN, m.Why.ZH)
		}
	}

	// The same probe said to be of another host: refused, and said so.
	other := filepath.Join(t.TempDir(), "other")
	r.Host.Name = "some-other-host"
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runfolder.WriteJSONAtomic(filepath.Join(other, probe.File), r); err != nil {
		t.Fatal(err)
	}
	fs, stderr := checkFindings(t, CheckOptions{Probe: other, ProbeRoot: t.TempDir()})
	if !strings.Contains(stderr, "is a probe of another host") || !strings.Contains(stderr, "some-other-host") {
		t.Errorf("the refusal is not said: %q", stderr)
	}
	for _, f := range fs {
		for _, e := range f.Evidence {
			if strings.HasPrefix(e.Key, "probe ") {
				t.Errorf("%s cites a probe of another host: %+v", f.ID, e)
			}
		}
	}
	// Nor is it found under the root.
	if _, stderr := checkFindings(t, CheckOptions{ProbeRoot: filepath.Dir(other)}); strings.Contains(stderr, "platform figures") {
		t.Errorf("a probe of another host was picked up: %q", stderr)
	}
}

// TestCheckNUMACitesProbe: on the 4-node Kunpeng tree, a probe document of
// that host with local and remote memory figures is cited by the binding
// recommendation with the remote/local ratio.
func TestCheckNUMACitesProbe(t *testing.T) {
	tree := filepath.Join(hostsDir, "kunpeng920-2s4n")
	facts := sysinfo.Collect(hostfs.Under(tree), sysinfo.Options{Now: fixedNow})
	r := &probe.Result{Schema: probe.Schema, Start: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC), Parts: []string{probe.PartMem},
		Host: probe.Identity(facts), Rounds: 7}
	if r.Host.Name == "" {
		t.Fatal("the fixture has no hostname")
	}
	fig := func(id, unit string, v float64) probe.Figure {
		return probe.Figure{ID: id, Part: probe.PartMem, Unit: unit, Median: v, Lo: v * 0.98, Hi: v * 1.02, Coverage: 0.98, OK: true,
			Rounds: []float64{v, v, v, v, v, v, v}}
	}
	for c := 0; c < 2; c++ {
		for m := 0; m < 2; m++ {
			lat, bw := 100.0, 12.0
			if c != m {
				lat, bw = 150.0, 8.0
			}
			r.Figures = append(r.Figures, fig("mem.lat.cpu"+strconv.Itoa(c)+"_mem"+strconv.Itoa(m), "ns", lat), fig("mem.read.cpu"+strconv.Itoa(c)+"_mem"+strconv.Itoa(m), "GB/s", bw))
		}
	}
	dir := filepath.Join(t.TempDir(), "kp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, probe.File), r); err != nil {
		t.Fatal(err)
	}
	fs, _ := checkFindings(t, CheckOptions{Root: tree, Probe: dir, ProbeRoot: t.TempDir()})
	n := findingByID(fs, "numa.topology")
	if n == nil || n.Status != finding.Fail {
		t.Fatalf("numa.topology does not recommend binding on the 4-node tree: %+v", n)
	}
	if !strings.Contains(n.Why.EN, "remote memory latency 150 ns against 100 ns local (1.50x") || !strings.Contains(n.Why.EN, "(33% less)") ||
		!strings.Contains(n.Why.ZH, "1.50 倍") {
		t.Errorf("why: %q / %q", n.Why.EN, n.Why.ZH)
	}
	if n.EvidenceValue("probe mem.lat.cpu0_mem1") == "" {
		t.Errorf("no per-pair evidence: %+v", n.Evidence)
	}
}

// TestRunCopiesProbe: `run --probe` keeps the probe in the run folder,
// which the offline reader then uses; a probe of another host is refused.
func TestRunCopiesProbe(t *testing.T) {
	root := t.TempDir()
	pdir := realProbe(t, root, "disk")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	env, _, errb := recEnv(t)
	dir := filepath.Join(t.TempDir(), "run")
	err := RunRun(context.Background(), env, &RunOptions{Target: srv.URL, Users: 2, Duration: 2 * time.Second, Interval: 500 * time.Millisecond,
		Out: dir, Output: "text", NoCatalog: true, Quiet: true, NoJFR: true, NoGCLog: true, Probe: pdir})
	if err != nil {
		var ee *ExitError
		if !(asExit(err, &ee) && ee.Code == ExitFindings) {
			t.Fatalf("run: %v\n%s", err, errb.String())
		}
	}
	L, err := verdict.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if L.Probe == nil {
		t.Fatalf("the run folder does not keep the probe: %+v\n%s", L.Problems, errb.String())
	}
	want, _ := filepath.Abs(filepath.Join(pdir, probe.File))
	if L.Probe.Origin != want || L.Probe.Figure("disk.fsync") == nil {
		t.Errorf("kept probe: origin %q (want %q), fsync %v", L.Probe.Origin, want, L.Probe.Figure("disk.fsync"))
	}
	listed := false
	for _, r := range L.Folder.Manifest.Raw {
		listed = listed || r == probe.RunFile
	}
	if !listed {
		t.Errorf("manifest raw files %v do not list %s", L.Folder.Manifest.Raw, probe.RunFile)
	}
}

func asExit(err error, ee **ExitError) bool { return errors.As(err, ee) }
