package apply

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// fakeHost copies a fixture host tree to a temp dir and returns its roots.
func fakeHost(t testing.TB, name string) (string, hostfs.FS) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "host")
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "..", "testdata", "hosts", name), dir).CombinedOutput(); err != nil {
		t.Fatalf("copying the fixture: %v: %s", err, out)
	}
	return dir, hostfs.Under(dir)
}

// snapshot is every regular file's bytes and every symlink's target.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			m[rel] = "-> " + l
			return err
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			m[rel] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// diff names the files that differ between two snapshots.
func diff(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, k+": "+strings.TrimSpace(v)+" -> "+strings.TrimSpace(b[k]))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k+": created")
		}
	}
	return out
}

func read(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sysctl(key, v string) finding.Change {
	return finding.Change{Kind: finding.ChangeSysctl, Key: key, Value: v}
}

func sysfs(key, v string) finding.Change {
	return finding.Change{Kind: finding.ChangeSysfs, Key: key, Value: v}
}

func TestApplyRevertFakeHost(t *testing.T) {
	dir, roots := fakeHost(t, "kunpeng920-2s4n")
	before := snapshot(t, dir)
	groups := []Group{
		{Finding: "net.socket-buffers", Changes: []finding.Change{sysctl("net.core.rmem_max", "16777216"), sysctl("net.core.wmem_max", "16777216")}},
		{Finding: "mem.thp.enabled", Changes: []finding.Change{sysfs("/sys/kernel/mm/transparent_hugepage/enabled", "madvise")}},
		{Finding: "cpu.governor", Changes: []finding.Change{sysfs("/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor", "performance")}},
		{Finding: "nic.irq.concentration/enp125s0f0", Changes: []finding.Change{sysfs("/proc/irq/107/smp_affinity_list", "0-31")}},
	}
	p := NewPlan(roots, groups)
	for _, g := range p.Groups {
		if g.Err != nil {
			t.Fatalf("%s: %v", g.Finding, g.Err)
		}
		if len(g.Steps) == 0 {
			t.Fatalf("%s: nothing to change on the fixture", g.Finding)
		}
	}
	gov := p.Groups[2]
	if n := len(gov.Steps) + len(gov.Same); n != 128 {
		t.Errorf("governor glob: %d CPUs, want 128", n)
	}
	for _, s := range gov.Steps {
		if !strings.HasPrefix(s.Key, "/sys/devices/system/cpu/cpu") || s.Before == "performance" {
			t.Errorf("governor step %+v", s)
		}
	}

	j := &Journal{Dir: t.TempDir()}
	res, err := Apply(j, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied() != 4 {
		t.Fatalf("applied %d groups, want 4: %+v", res.Applied(), res.Groups)
	}
	if got := read(t, filepath.Join(dir, "proc/sys/net/core/rmem_max")); got != "16777216\n" {
		t.Errorf("rmem_max = %q", got)
	}
	if got := read(t, filepath.Join(dir, "sys/kernel/mm/transparent_hugepage/enabled")); got != "madvise\n" {
		t.Errorf("THP = %q", got)
	}
	txs, err := Status(j)
	if err != nil || len(txs) != 1 || txs[0].ID != res.TxID || !txs[0].Open() {
		t.Fatalf("status: %v %+v", err, txs)
	}
	for _, k := range txs[0].Keys {
		if k.State != OpVerified {
			t.Errorf("%s: state %s, want verified", k.Key, k.State)
		}
	}

	rr, err := Revert(j, RevertOptions{All: true})
	if err != nil || len(rr.Errs) > 0 {
		t.Fatalf("revert: %v %v", err, rr.Errs)
	}
	after := snapshot(t, dir)
	// The THP file is "[always] madvise never" in the tree and reverts to the
	// choice written back, as on a real kernel; every other file byte for byte.
	thp := "sys/kernel/mm/transparent_hugepage/enabled"
	if normalize(thp, after[thp]) != normalize(thp, before[thp]) {
		t.Errorf("THP back to %q, was %q", after[thp], before[thp])
	}
	delete(after, thp)
	delete(before, thp)
	if d := diff(before, after); len(d) > 0 {
		t.Errorf("revert left the tree changed: %v", d[:min(len(d), 5)])
	}

	// A second revert is a no-op.
	again := snapshot(t, dir)
	rr, err = Revert(j, RevertOptions{All: true})
	if err != nil || len(rr.Reverted) != 0 || len(rr.Errs) != 0 {
		t.Fatalf("second revert: %v %+v", err, rr)
	}
	if d := diff(again, snapshot(t, dir)); len(d) > 0 {
		t.Errorf("second revert changed %v", d)
	}
}

func TestReadBackMismatchUndoesGroup(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	// A knob that swallows writes: reads back empty, never as written.
	sink := filepath.Join(dir, "sys/kernel/mm/transparent_hugepage/defrag")
	os.Remove(sink)
	if err := os.Symlink(os.DevNull, sink); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	p := NewPlan(roots, []Group{{Finding: "x", Changes: []finding.Change{
		sysctl("net.core.somaxconn", "8192"), sysfs("/sys/kernel/mm/transparent_hugepage/defrag", "madvise")}}})
	j := &Journal{Dir: t.TempDir()}
	res, err := Apply(j, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Groups[0]
	if g.Err == nil || !strings.Contains(g.Err.Error(), `wrote "madvise", reads back ""`) {
		t.Fatalf("group error = %v, want a read-back mismatch", g.Err)
	}
	if res.Applied() != 0 {
		t.Errorf("applied %d", res.Applied())
	}
	if d := diff(before, snapshot(t, dir)); len(d) > 0 {
		t.Errorf("undo left %v", d)
	}
	txs, _ := Status(j)
	for _, k := range txs[0].Keys {
		if k.State != OpUndone {
			t.Errorf("%s: %s, want undone", k.Key, k.State)
		}
	}
	if txs[0].Open() {
		t.Error("an undone transaction is still open")
	}
}

func TestRevertRefusesDrift(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	p := NewPlan(roots, []Group{{Finding: "net.somaxconn", Changes: []finding.Change{sysctl("net.core.somaxconn", "8192")}}})
	j := &Journal{Dir: t.TempDir()}
	res, err := Apply(j, p, Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply: %v %+v", err, res)
	}
	f := filepath.Join(dir, "proc/sys/net/core/somaxconn")
	if err := os.WriteFile(f, []byte("1024\n"), 0o644); err != nil { // someone else
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		rr, err := Revert(j, RevertOptions{TxID: res.TxID})
		if err != nil {
			t.Fatal(err)
		}
		var de *DriftError
		if len(rr.Errs) != 1 || !errors.As(rr.Errs[0], &de) {
			t.Fatalf("revert %d: errors %v, want one drift", i, rr.Errs)
		}
		msg := de.Error()
		for _, want := range []string{"net.core.somaxconn", `wrote "8192"`, `is "1024" now`, `"4096"`, "--force"} {
			if !strings.Contains(msg, want) {
				t.Errorf("drift message %q lacks %q", msg, want)
			}
		}
		if zh := de.Text().ZH; !strings.Contains(zh, "写入 \"8192\"") || !strings.Contains(zh, "现在为 \"1024\"") {
			t.Errorf("Chinese drift message %q", zh)
		}
		if got := read(t, f); got != "1024\n" {
			t.Fatalf("drifted key overwritten: %q", got)
		}
	}
	rr, err := Revert(j, RevertOptions{TxID: res.TxID, Force: true})
	if err != nil || len(rr.Errs) > 0 || len(rr.Reverted) != 1 {
		t.Fatalf("forced revert: %v %+v", err, rr)
	}
	if got := read(t, f); got != "4096\n" {
		t.Errorf("forced revert wrote %q, want the value before (4096)", got)
	}
}

func TestCoupledDirtyKnobs(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	// The host uses dirty_bytes (the kernel shows dirty_ratio 0 then).
	for f, v := range map[string]string{"vm/dirty_bytes": "268435456\n", "vm/dirty_ratio": "0\n"} {
		if err := os.WriteFile(filepath.Join(dir, "proc/sys", f), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, dir)
	p := NewPlan(roots, []Group{{Finding: "mem.dirty", Changes: []finding.Change{sysctl("vm.dirty_ratio", "20")}}})
	g := p.Groups[0]
	if g.Err != nil || len(g.Steps) != 2 {
		t.Fatalf("plan: %v %+v: want dirty_ratio and its partner dirty_bytes", g.Err, g.Steps)
	}
	var order []string
	j := &Journal{Dir: t.TempDir()}
	res, err := Apply(j, p, Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply: %v %+v", err, res.Groups)
	}
	recs, _ := j.read(res.TxID)
	for _, r := range recs {
		if r.Op == OpPlanned {
			order = append(order, r.Key+"="+r.Want)
		}
	}
	if strings.Join(order, " ") != "vm.dirty_bytes=0 vm.dirty_ratio=20" {
		t.Errorf("write order %v: the zeroed partner goes first so the ratio sticks", order)
	}
	if rr, err := Revert(j, RevertOptions{All: true}); err != nil || len(rr.Errs) > 0 {
		t.Fatalf("revert: %v %v", err, rr.Errs)
	}
	if d := diff(before, snapshot(t, dir)); len(d) > 0 {
		t.Errorf("revert left %v", d)
	}
}

func TestPlanRefusesWhatItCannotApply(t *testing.T) {
	_, roots := fakeHost(t, "build-vm-amd64")
	for _, c := range []finding.Change{
		sysctl("net.core.no_such_knob", "1"),
		sysfs("/tmp/evil", "1"),
		sysfs("/sys/../etc/passwd", "1"),
		sysfs("/etc/passwd", "x"),
		sysfs("/proc/sysrq-trigger", "b"),
		sysfs("/proc/1/oom_score_adj", "-1000"),
		{Kind: KindFile, Key: PersistFile, Value: "kernel.sysrq = 1"},
		{Kind: KindFile, Key: "/etc/passwd", Value: "x"},
		{Kind: finding.ChangeEthtool, Key: "eth0/rx", Value: "4096"},
		{Kind: "grub", Key: "x", Value: "y"},
	} {
		p := NewPlan(roots, []Group{{Finding: "f", Changes: []finding.Change{c}}})
		if p.Groups[0].Err == nil {
			t.Errorf("%+v: planned, want refused", c)
		}
	}
	p := NewPlan(roots, []Group{{Finding: "f", Changes: []finding.Change{{Kind: finding.ChangeEthtool, Key: "eth0/rx", Value: "4096"}}}})
	if !strings.Contains(p.Groups[0].Err.Error(), "not supported yet") {
		t.Errorf("ethtool -G: %v", p.Groups[0].Err)
	}
	j := &Journal{Dir: t.TempDir()}
	if _, err := Apply(j, p, Options{}); err == nil {
		t.Error("Apply of a plan with nothing to do succeeded")
	}
	if ids, _ := j.ids(); len(ids) != 0 {
		t.Errorf("an empty apply left transactions %v", ids)
	}
}

func TestPersistIsItsOwnTransaction(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	before := snapshot(t, dir)
	j := &Journal{Dir: t.TempDir()}
	res, err := Apply(j, NewPlan(roots, []Group{{Finding: "net.somaxconn", Changes: []finding.Change{sysctl("net.core.somaxconn", "8192"), sysctl("net.ipv4.tcp_rmem", "4096 131072 16777216")}}}), Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply: %v %+v", err, res)
	}
	pp, err := PersistPlan(j, res.TxID, "")
	if err != nil {
		t.Fatal(err)
	}
	pres, err := Apply(j, pp, Options{})
	if err != nil || pres.Applied() != 1 {
		t.Fatalf("persist: %v %+v", err, pres)
	}
	conf := read(t, filepath.Join(dir, "etc/sysctl.d/90-tuneloop.conf"))
	for _, want := range []string{"net.core.somaxconn = 8192\n", "net.ipv4.tcp_rmem = 4096 131072 16777216\n"} {
		if !strings.Contains(conf, want) {
			t.Errorf("sysctl.d file lacks %q:\n%s", want, conf)
		}
	}
	if _, err := PersistPlan(j, pres.TxID, ""); err == nil {
		t.Error("persisting a persistence step was accepted")
	}
	// Reverting the persistence removes the file it created; the runtime
	// change stays until its own transaction is reverted.
	if rr, err := Revert(j, RevertOptions{TxID: pres.TxID}); err != nil || len(rr.Errs) > 0 {
		t.Fatalf("revert persist: %v %v", err, rr.Errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "etc/sysctl.d/90-tuneloop.conf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sysctl.d file is still there: %v", err)
	}
	if got := read(t, filepath.Join(dir, "proc/sys/net/core/somaxconn")); got != "8192\n" {
		t.Errorf("somaxconn = %q after reverting only the persistence", got)
	}
	if rr, err := Revert(j, RevertOptions{All: true}); err != nil || len(rr.Errs) > 0 {
		t.Fatalf("revert: %v %v", err, rr.Errs)
	}
	after := snapshot(t, dir)
	if d := diff(before, after); len(d) > 0 {
		t.Errorf("tree changed: %v", d)
	}
}

func TestNormalize(t *testing.T) {
	for _, c := range []struct{ key, a, b string }{
		{"/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never", "madvise"},
		{"/sys/block/sda/queue/scheduler", "mq-deadline [none]", "none"},
		{"/sys/class/net/eth0/queues/rx-0/rps_cpus", "00000000,0000000f", "f"},
		{"/proc/irq/24/smp_affinity_list", "0-3,8", "0,1,2,3,8"},
		{"net.ipv4.tcp_rmem", "4096\t131072\t6291456", "4096 131072 6291456"},
	} {
		if normalize(c.key, c.a) != normalize(c.key, c.b) {
			t.Errorf("%s: %q and %q differ: %q vs %q", c.key, c.a, c.b, normalize(c.key, c.a), normalize(c.key, c.b))
		}
	}
	if normalize("/sys/class/net/eth0/queues/rx-0/rps_cpus", "00000000,0000000f") == normalize("/sys/class/net/eth0/queues/rx-0/rps_cpus", "1f") {
		t.Error("different masks compare equal")
	}
}

func TestLiveOnlyKindsRefusedOnATree(t *testing.T) {
	_, roots := fakeHost(t, "build-vm-amd64")
	for _, c := range []finding.Change{
		{Kind: finding.ChangePrlimit, Key: "29607/nofile", Value: "65536:65536"}, // a PID of the tree, not of this host
		{Kind: finding.ChangeEthtool, Key: "eth0/combined", Value: "4"},
	} {
		p := NewPlan(roots, []Group{{Finding: "f", Changes: []finding.Change{c}}})
		if err := p.Groups[0].Err; err == nil || !strings.Contains(err.Error(), "live host") {
			t.Errorf("%+v on a captured tree: %v", c, err)
		}
	}
}

func TestConflictsNamedBeforeApply(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	os.MkdirAll(filepath.Join(dir, "etc/sysctl.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "etc/sysctl.d/99-app.conf"), []byte("# app\nnet/core/somaxconn = 1024\n-vm.max_map_count=262144\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "etc/tuned"), 0o755)
	os.WriteFile(filepath.Join(dir, "etc/tuned/active_profile"), []byte("virtual-guest\n"), 0o644)
	p := NewPlan(roots, []Group{{Finding: "f", Changes: []finding.Change{sysctl("net.core.somaxconn", "8192"), sysctl("vm.max_map_count", "262144")}}})
	var got []string
	for _, c := range p.Groups[0].Conflicts {
		got = append(got, c.EN)
	}
	s := strings.Join(got, "\n")
	if !strings.Contains(s, "/etc/sysctl.d/99-app.conf sets net.core.somaxconn = 1024") || !strings.Contains(s, "TuneD profile virtual-guest") {
		t.Errorf("conflicts:\n%s", s)
	}
	if strings.Contains(s, "max_map_count") {
		t.Errorf("a file setting the same value is no conflict:\n%s", s)
	}
}

func TestStackedTransactions(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	before := snapshot(t, dir)
	j := &Journal{Dir: t.TempDir()}
	var ids []string
	for _, v := range []string{"8192", "16384"} {
		res, err := Apply(j, NewPlan(roots, []Group{{Finding: "net.somaxconn", Changes: []finding.Change{sysctl("net.core.somaxconn", v)}}}), Options{})
		if err != nil || res.Applied() != 1 {
			t.Fatalf("apply %s: %v %+v", v, err, res)
		}
		ids = append(ids, res.TxID)
	}
	// The older one alone: the key is held by the newer one, said so.
	rr, err := Revert(j, RevertOptions{TxID: ids[0]})
	var de *DriftError
	if err != nil || len(rr.Errs) != 1 || !errors.As(rr.Errs[0], &de) || de.By != ids[1] || !strings.Contains(de.Error(), "revert that one first") {
		t.Fatalf("reverting the older transaction first: %v %v", err, rr.Errs)
	}
	// --all goes newest first and restores the value before both.
	rr, err = Revert(j, RevertOptions{All: true})
	if err != nil || len(rr.Errs) > 0 || len(rr.Reverted) != 2 || rr.Reverted[0].Tx != ids[1] {
		t.Fatalf("revert --all: %v %+v", err, rr)
	}
	if d := diff(before, snapshot(t, dir)); len(d) > 0 {
		t.Errorf("tree changed: %v", d)
	}
}

func TestEditedJournalIsNotActedOn(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	j := &Journal{Dir: t.TempDir()}
	res, err := Apply(j, NewPlan(roots, []Group{{Finding: "net.somaxconn", Changes: []finding.Change{sysctl("net.core.somaxconn", "8192")}}}), Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply: %v %+v", err, res)
	}
	// Someone edits the value before in the journal: revert would write it.
	f := filepath.Join(j.Dir, res.TxID+".jsonl")
	b := read(t, f)
	edited := strings.Replace(b, `"before":"4096"`, `"before":"1"`, 1)
	if edited == b {
		t.Fatal("no before value in the journal")
	}
	os.WriteFile(f, []byte(edited), 0o600)
	rr, err := Revert(j, RevertOptions{All: true})
	var ce *ChainError
	if err != nil || len(rr.Errs) != 1 || !errors.As(rr.Errs[0], &ce) || len(rr.Reverted) != 0 {
		t.Fatalf("revert of an edited journal: %v %+v", err, rr)
	}
	if got := read(t, filepath.Join(dir, "proc/sys/net/core/somaxconn")); got != "8192\n" {
		t.Errorf("somaxconn %q: acted on an edited journal", got)
	}
	txs, _ := Status(j)
	if txs[0].Broken == nil {
		t.Error("status does not show the broken chain")
	}
}

func TestTornLastLineIsDropped(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	before := snapshot(t, dir)
	j := &Journal{Dir: t.TempDir()}
	res, err := Apply(j, NewPlan(roots, []Group{{Finding: "net.somaxconn", Changes: []finding.Change{sysctl("net.core.somaxconn", "8192")}}}), Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply: %v %+v", err, res)
	}
	// The machine died in the middle of writing a line.
	f := filepath.Join(j.Dir, res.TxID+".jsonl")
	fh, _ := os.OpenFile(f, os.O_WRONLY|os.O_APPEND, 0)
	fh.WriteString(`{"seq":9,"op":"rever`)
	fh.Close()
	if rr, err := Revert(j, RevertOptions{All: true}); err != nil || len(rr.Errs) > 0 || len(rr.Reverted) != 1 {
		t.Fatalf("revert after a torn line: %v %+v", err, rr)
	}
	if d := diff(before, snapshot(t, dir)); len(d) > 0 {
		t.Errorf("tree changed: %v", d)
	}
	if _, err := j.read(res.TxID); err != nil {
		t.Errorf("journal after revert: %v", err)
	}
	if b := read(t, f); !strings.HasSuffix(b, "}\n") || strings.Contains(b, `"rever`+"\n") {
		t.Errorf("torn line kept:\n%s", b)
	}
}

func TestUnappliableSaysWhy(t *testing.T) {
	for _, c := range []struct {
		f    finding.Finding
		want string
	}{
		{finding.Finding{ID: "security.mitigations"}, "advice only"},
		{finding.Finding{ID: "kernel.cmdline.iommu", Fix: finding.Fix{Apply: "grubby ...", Reboot: true}}, "reboot"},
		{finding.Finding{ID: "jvm.heapdump-oom", Fix: finding.Fix{Apply: "JAVA_OPTS += -XX:+HeapDumpOnOutOfMemoryError"}}, "launch overlay"},
		{finding.Finding{ID: "jvm.numa.bind", Fix: finding.Fix{Apply: "taskset -apc 0-31 4127 && migratepages 4127 all 0"}}, "taskset"},
		{finding.Finding{ID: "tuning.profile", Fix: finding.Fix{Apply: "tuned-adm profile throughput-performance"}}, "TuneD"},
		{finding.Finding{ID: "nic.mtu", Fix: finding.Fix{Apply: "ip link set dev eth0 mtu 9000"}}, "MTU"},
		{finding.Finding{ID: "cpu.cstates", Fix: finding.Fix{Apply: "for d in /sys/devices/system/cpu/cpu*/cpuidle/state*; do ..."}}, "idle states"},
	} {
		why, ok := Unappliable(&c.f)
		if !ok || !strings.Contains(why.EN, c.want) || why.ZH == "" || !strings.HasPrefix(why.EN, "cannot be applied automatically") {
			t.Errorf("%s: %v %q, want %q", c.f.ID, ok, why.EN, c.want)
		}
	}
	f := finding.Finding{ID: "net.somaxconn", Fix: finding.Fix{Changes: []finding.Change{sysctl("net.core.somaxconn", "4096")}}}
	if _, ok := Unappliable(&f); ok {
		t.Error("a finding with changes is unappliable")
	}
}
