package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// The lead's host fixture trees (testdata/hosts), collected with sysinfo and
// judged by the whole knowledge base.

func fixture(t *testing.T, name string) *sysinfo.Facts {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "hosts", name)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("fixture %s not present: %v", name, err)
	}
	return sysinfo.Collect(hostfs.Under(dir), sysinfo.Options{
		Now:       func() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) },
		NoEthtool: true,
		OnPanic: func(area string, v any, _ []byte) {
			t.Errorf("sysinfo %s panicked: %v", area, v)
		},
	})
}

type expect struct {
	id      string
	subject string // "" = any
	st      finding.Status
	sev     finding.Severity // checked for Fail
	contain string           // in Observed.EN, when set
}

func checkFixture(t *testing.T, name string, p Profile, want []expect) []finding.Finding {
	t.Helper()
	f := fixture(t, name)
	fs := Evaluate(All(), f, p)
	for _, x := range fs {
		checkFinding(t, x)
	}
	for _, w := range want {
		var got *finding.Finding
		for i := range fs {
			if fs[i].ID == w.id && (w.subject == "" || fs[i].Subject == w.subject) {
				got = &fs[i]
				break
			}
		}
		if got == nil {
			t.Errorf("%s: no finding %s", name, w.id)
			continue
		}
		if got.Status != w.st || (w.st == finding.Fail && got.Severity != w.sev) {
			t.Errorf("%s %s: %s/%s, want %s/%s (observed %q, reason %q)", name, got.Key(), got.Status, got.Severity, w.st, w.sev, got.Observed.EN, got.Reason.EN)
			continue
		}
		if w.contain != "" && !strings.Contains(got.Observed.EN, w.contain) {
			t.Errorf("%s %s: observed %q lacks %q", name, got.Key(), got.Observed.EN, w.contain)
		}
	}
	return fs
}

func TestFixtureKunpeng(t *testing.T) {
	fs := checkFixture(t, "kunpeng920-2s4n", JavaWeb, []expect{
		{id: "nic.irq.concentration", st: F, sev: critical},
		{id: "nic.queues", st: F, sev: warning, contain: "1 queue(s) on a 128-CPU host"},
		{id: "nic.rps", st: F, sev: info},
		{id: "numa.topology", st: F, sev: info, contain: "4 NUMA nodes"},
		{id: "jvm.numa.bind", st: F, sev: info},
		{id: "mem.thp.enabled", st: F, sev: warning},
		{id: "cpu.governor", st: F, sev: warning},
		{id: "jvm.limits.nofile", st: F, sev: warning},
		{id: "jvm.gc.logging", st: F, sev: warning},
		{id: "jvm.heapdump-oom", st: F, sev: warning},
		{id: "cpu.smt", st: S},
	})
	if len(fs) > 0 {
		irq := find(fs, "nic.irq.concentration")
		for _, x := range irq {
			if x.Status == F && (!strings.Contains(x.Fix.Apply, "/proc/irq/") || !strings.Contains(x.Fix.Revert, "/proc/irq/")) {
				t.Errorf("irq fix: %+v", x.Fix)
			}
		}
	}
}

func TestFixtureCentos7(t *testing.T) {
	checkFixture(t, "centos7-3.10-cgv1", JavaWeb, []expect{
		{id: "net.somaxconn", st: F, sev: warning},
		{id: "mem.swap.used", st: F, sev: critical},
		{id: "mem.swappiness", st: F, sev: warning},
		{id: "mem.thp.enabled", st: F, sev: warning},
		{id: "cpu.governor", st: F, sev: warning},
		{id: "kernel.release", st: F, sev: info},
		{id: "nic.irq.concentration", st: P},
	})
}

func TestFixtureContainer(t *testing.T) {
	checkFixture(t, "container-quota", JavaWeb, []expect{
		{id: "jvm.heap.over-limit", st: F, sev: critical},
		{id: "jvm.container-awareness", st: F, sev: critical},
		{id: "cgroup.cpu-throttling", st: F, sev: critical},
	})
}

func TestFixtureBuildVM(t *testing.T) {
	fs := checkFixture(t, "build-vm-amd64", JavaWeb, []expect{
		{id: "cpu.governor", st: S},
		{id: "mem.thp.enabled", st: P},
		{id: "virt.hypervisor", st: F, sev: info},
		{id: "mem.swappiness", st: P},
	})
	for _, x := range fs {
		if x.Status == F && x.Severity == critical {
			t.Errorf("critical on the build VM: %s %s", x.Key(), x.Observed.EN)
		}
	}
}

func TestFixtureEmptyAndGarbage(t *testing.T) {
	for _, name := range []string{"empty", "garbage"} {
		for _, p := range Profiles {
			for _, x := range checkFixture(t, name, p, nil) {
				if x.Status == F {
					t.Errorf("%s %s: fail %s from unreadable input: %s", name, p, x.Key(), x.Observed.EN)
				}
			}
		}
	}
}
