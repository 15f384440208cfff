package verdict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// realDiskProbe measures this machine's disk (a quick probe, a few
// seconds) in a temporary directory.
func realDiskProbe(t *testing.T) *probe.Result {
	t.Helper()
	if testing.Short() {
		t.Skip("measures the disk")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	facts := sysinfo.Collect(hostfs.Live(), sysinfo.Options{NoEthtool: true})
	r, err := probe.Measure(ctx, probe.Options{Parts: []string{probe.PartDisk}, Quick: true, Dir: t.TempDir(), Facts: facts})
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Figure("disk.fsync"); f == nil || len(f.Rounds) == 0 || !(f.Median > 0) {
		t.Skipf("the probe measured no fsync latency here: %+v %v", f, r.Skipped)
	}
	return r
}

// withProbe copies a recorded run and puts r into it as `run` does, r's
// host set to the run's (the run stands for a recording on this machine).
func withProbe(t *testing.T, src string, r *probe.Result, host *probe.Host) string {
	t.Helper()
	dir := copyRun(t, src)
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := *r
	if host != nil {
		c.Host = *host
	} else {
		id := probe.Identity(f.Manifest.Facts)
		c.Host.Name, c.Host.Kernel, c.Host.CPUModel = id.Name, id.Kernel, id.CPUModel
	}
	c.Origin = "probes/20261128T070000Z-vm"
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, probe.RunFile), &c); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestVerdictCitesProbeFsync(t *testing.T) {
	r := realDiskProbe(t)
	med := r.Figure("disk.fsync").Median
	for _, name := range []string{"fsync-io", "sync-logging"} {
		t.Run(name, func(t *testing.T) {
			L, err := Load(withProbe(t, filepath.Join("testdata", "runs", name), r, nil))
			if err != nil {
				t.Fatal(err)
			}
			if L.Probe == nil {
				t.Fatalf("the run's probe was not kept: %+v", L.Problems)
			}
			d := Decide(L)
			if d.Verdict == nil || len(d.Mechanisms) == 0 {
				t.Fatalf("no verdict or mechanism: %+v", d.Verdict)
			}
			v := d.Verdict
			if !diskBound(Evidence(L), &d.Mechanisms[0]) {
				t.Fatalf("mechanism %s is not read as waiting on the disk", d.Mechanisms[0].Entry.ID)
			}
			got := v.EvidenceValue("probe disk.fsync")
			if got == "" {
				t.Fatalf("verdict (%s) does not cite the probe's fsync: %+v", d.Mechanisms[0].Entry.ID, v.Evidence)
			}
			want := figure(r.Figure("disk.fsync"))
			if got != want {
				t.Errorf("fsync evidence %q, want the probe's %q", got, want)
			}
			for _, e := range v.Evidence {
				if e.Key == "probe disk.fsync" && (!strings.Contains(e.Source, probe.RunFile) || !strings.Contains(e.Source, "probes/20261128T070000Z-vm") ||
					!strings.Contains(e.Source, r.Start.UTC().Format(time.RFC3339))) {
					t.Errorf("source %q does not say where and when the probe was taken", e.Source)
				}
			}
			bound := v.EvidenceValue("fsync-bound writes per second under one lock")
			if want := fmt.Sprintf("%.0f ", 1e6/med); !strings.HasPrefix(bound, want) {
				t.Errorf("bound %q, want %s per second (1/%.1f us)", bound, want, med)
			}
			for _, s := range []string{v.Observed.EN, v.Observed.ZH} {
				if !strings.Contains(s, "fsync") {
					t.Errorf("observed does not say the fsync figure: %s", s)
				}
			}
		})
	}
}

func TestVerdictRefusesProbeOfAnotherHost(t *testing.T) {
	r := realDiskProbe(t)
	other := probe.Host{Name: "some-other-host", Kernel: r.Host.Kernel, CPUModel: r.Host.CPUModel}
	L, err := Load(withProbe(t, filepath.Join("testdata", "runs", "fsync-io"), r, &other))
	if err != nil {
		t.Fatal(err)
	}
	if L.Probe != nil {
		t.Fatal("a probe of another host was kept")
	}
	refused := false
	for _, p := range L.Problems {
		if p.ID == IDProbeRefused && strings.Contains(p.Reason.EN, "some-other-host") && p.Reason.ZH != "" {
			refused = true
		}
	}
	if !refused {
		t.Errorf("the refusal is not said: %+v", L.Problems)
	}
	d := Decide(L)
	if d.Verdict != nil && d.Verdict.EvidenceValue("probe disk.fsync") != "" {
		t.Error("the verdict cites a probe of another host")
	}
}

func TestVerdictProbeUnreadable(t *testing.T) {
	dir := copyRun(t, filepath.Join("testdata", "runs", "fsync-io"))
	if err := os.WriteFile(filepath.Join(dir, probe.RunFile), []byte("{\"schema\": \"tuneloop.probe/v1\",\n \"figures\": [{]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	L, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if L.Probe != nil {
		t.Fatal("a broken probe was kept")
	}
	found := false
	for _, p := range L.Problems {
		found = found || (p.ID == IDUnreadable && p.Subject == probe.RunFile && strings.Contains(p.Reason.EN, "probe.json:2"))
	}
	if !found {
		t.Errorf("the broken probe is not named with its line: %+v", L.Problems)
	}
}
