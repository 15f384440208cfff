package probe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

func writeProbe(t *testing.T, dir string, r *Result) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, File), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSameHost(t *testing.T) {
	a := Host{Name: "db1", Kernel: "6.1.0", CPUModel: "Kunpeng-920"}
	for _, c := range []struct {
		b    Host
		ok   bool
		says string
	}{
		{a, true, ""},
		{Host{Name: "db1", Kernel: "6.1.0"}, true, ""}, // CPU model unknown on one side
		{Host{Name: "db2", Kernel: "6.1.0", CPUModel: "Kunpeng-920"}, false, `host "db1", not "db2"`},
		{Host{Name: "db1", Kernel: "6.6.0", CPUModel: "Kunpeng-920"}, false, `kernel "6.1.0", not "6.6.0"`},
		{Host{Name: "db1", Kernel: "6.1.0", CPUModel: "EPYC"}, false, "CPU"},
		{Host{}, false, "unknown"},
		// A fleet from one image: name, kernel and CPU alike, machines not.
		{Host{Name: "db1", Kernel: "6.1.0", CPUModel: "Kunpeng-920", MachineID: "5e0b"}, true, ""}, // unknown on a
	} {
		ok, why := SameHost(a, c.b)
		if ok != c.ok || !strings.Contains(why.EN, c.says) || (!ok && why.ZH == "") {
			t.Errorf("SameHost(%+v) = %v %q", c.b, ok, why.EN)
		}
	}
}

// Hosts that share a name, kernel and CPU model (VMs from one image) are
// told apart by their machine IDs when both probes know them, and the
// hashes are not shown.
func TestSameHostMachineID(t *testing.T) {
	a := Host{Name: "localhost", Kernel: "5.10.0", CPUModel: "Kunpeng-920", MachineID: "9f1c0e2a"}
	b := a
	b.MachineID = "77d0b4e1"
	ok, why := SameHost(a, b)
	if ok || !strings.Contains(why.EN, "another machine ID") || why.ZH == "" || strings.Contains(why.EN, "77d0") {
		t.Errorf("two machines of one image: %v %q", ok, why.EN)
	}
	if ok, _ := SameHost(a, a); !ok {
		t.Error("one machine is not itself")
	}
	old := a
	old.MachineID = "" // a probe from before machine IDs were kept
	if ok, _ := SameHost(old, a); !ok {
		t.Error("an older probe without a machine ID is refused")
	}
}

// TestFindNewestOfHost: under the root, the newest complete probe of the
// host is chosen; other hosts', interrupted and broken ones are passed over.
func TestFindNewestOfHost(t *testing.T) {
	root := t.TempDir()
	me := Host{Name: "vm", Kernel: "6.18", CPUModel: "Xeon"}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	mk := func(name string, h Host, at time.Duration, interrupted bool) {
		writeProbe(t, filepath.Join(root, name), &Result{Schema: Schema, Host: h, Start: t0.Add(at), Interrupted: interrupted,
			Figures: []Figure{{ID: "cpu.syscall", Median: float64(at / time.Hour), Rounds: []float64{1}}}})
	}
	mk("20261101-000000-vm", me, time.Hour, false)
	mk("20261102-000000-vm", me, 2*time.Hour, false)
	mk("20261103-000000-other", Host{Name: "other", Kernel: "6.18", CPUModel: "Xeon"}, 3*time.Hour, false)
	mk("20261104-000000-vm", me, 4*time.Hour, true)
	mk("20261105-000000-vm", Host{Name: "vm", Kernel: "5.10", CPUModel: "Xeon"}, 5*time.Hour, false)
	if err := os.MkdirAll(filepath.Join(root, "20261106-broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "20261106-broken", File), []byte("{not json"), 0o644)

	r, file := Find(root, me)
	if r == nil || !strings.Contains(file, "20261102-000000-vm") {
		t.Fatalf("found %q, want the 2 November probe", file)
	}
	if r, _ := Find(root, Host{Name: "nobody"}); r != nil {
		t.Error("a probe found for a host never probed")
	}
	if r, _ := Find(filepath.Join(root, "absent"), me); r != nil {
		t.Error("a probe found under a missing root")
	}

	facts := &sysinfo.Facts{}
	facts.Hostname = sysinfo.Field[string]{Value: "vm", OK: true}
	facts.Kernel.Release = sysinfo.Field[string]{Value: "6.18", OK: true}
	facts.CPU.Model = sysinfo.Field[string]{Value: "Xeon", OK: true}
	r, file, note, err := For("", root, nil, facts)
	if err != nil || r == nil || r.Origin != file || !filepath.IsAbs(file) || !strings.Contains(note.EN, file) {
		t.Errorf("For: %v %q %q %v", r != nil, file, note.EN, err)
	}
	r, _, note, err = For(filepath.Join(root, "20261103-000000-other"), root, nil, facts)
	if err != nil || r != nil || !strings.Contains(note.EN, "another host") || !strings.Contains(note.ZH, "另一台主机") {
		t.Errorf("another host's probe: %v %q %v", r != nil, note.EN, err)
	}
	if _, _, _, err := For(filepath.Join(root, "20261106-broken"), root, nil, facts); err == nil || !strings.Contains(err.Error(), "probe.json:1") {
		t.Errorf("a broken --probe: %v", err)
	}

	// The catalog (a lookup) names probes kept elsewhere: its newest
	// finished one of this host wins over an older one under the root;
	// one still probing (a killed probe) is passed over, also as --probe.
	elsewhere := t.TempDir()
	mkAt := func(dir string, at time.Duration, status string) string {
		d := filepath.Join(elsewhere, dir)
		writeProbe(t, d, &Result{Schema: Schema, Host: me, Start: t0.Add(at), Status: status,
			Figures: []Figure{{ID: "cpu.syscall", Median: 1, Rounds: []float64{1}}}})
		return d
	}
	newer := mkAt("newer", 10*time.Hour, StatusComplete)
	killed := mkAt("killed", 20*time.Hour, StatusProbing)
	older := mkAt("older", time.Minute, StatusComplete)
	asked := ""
	lookup := func(name string) ([]string, error) { asked = name; return []string{killed, newer, older}, nil }
	r, file, note, err = For("", root, lookup, facts)
	if err != nil || r == nil || asked != "vm" || !strings.Contains(file, "newer") || !strings.Contains(note.EN, "in the catalog") || !strings.Contains(note.ZH, "运行记录目录") {
		t.Errorf("through the catalog: %q %q %v (asked %q)", file, note.EN, err, asked)
	}
	// An older one in the catalog loses to a newer one under the root.
	r, file, note, _ = For("", root, func(string) ([]string, error) { return []string{older}, nil }, facts)
	if r == nil || !strings.Contains(file, "20261102-000000-vm") || !strings.Contains(note.EN, "under "+root) {
		t.Errorf("the root's newer probe: %q %q", file, note.EN)
	}
	// A catalog that cannot be read: said, and the root still used.
	r, file, note, err = For("", root, func(string) ([]string, error) { return nil, os.ErrPermission }, facts)
	if err != nil || r == nil || !strings.Contains(file, "20261102-000000-vm") || !strings.Contains(note.EN, "could not be read") {
		t.Errorf("unreadable catalog: %q %q %v", file, note.EN, err)
	}
	r, _, note, err = For(killed, root, nil, facts)
	if err != nil || r != nil || !strings.Contains(note.EN, "never finished") || !strings.Contains(note.ZH, "未完成") {
		t.Errorf("--probe of a killed probe: %v %q %v", r != nil, note.EN, err)
	}
}
