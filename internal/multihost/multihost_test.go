package multihost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

func TestFromFlags(t *testing.T) {
	hs, err := FromFlags([]string{"deploy@app1.prod:2222", "db=db1", "lb=[::1]:22", "db1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Host{{"app1.prod", RoleApp, "deploy@app1.prod:2222"}, {"db1", RoleDB, "db1"}, {"__1", RoleLB, "[::1]:22"}, {"db1-2", RoleOther, "db1"}}
	for i, w := range want {
		if hs[i] != w {
			t.Errorf("host %d = %+v, want %+v", i, hs[i], w)
		}
	}
	if _, err := FromFlags([]string{"app=a", "app=b"}); err == nil || !strings.Contains(err.Error(), "2 hosts have the role app") {
		t.Errorf("two app hosts: %v", err)
	}
	if _, err := FromFlags([]string{"web=a"}); err == nil || !strings.Contains(finding.Localize(err, finding.ZH), "未知角色") {
		t.Errorf("unknown role: %v", err)
	}
}

func TestParseFile(t *testing.T) {
	lines := `# the system under test
app  app1 deploy@10.0.0.5
db   db1  db1.prod:2222   # MySQL
`
	yml := `hosts:
  - {name: app1, role: app, address: deploy@10.0.0.5}
  - name: db1
    role: db
    address: db1.prod:2222
`
	for name, src := range map[string]string{"lines": lines, "yaml": yml} {
		hs, err := ParseFile(strings.NewReader(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(hs) != 2 || hs[0] != (Host{"app1", RoleApp, "deploy@10.0.0.5"}) || hs[1] != (Host{"db1", RoleDB, "db1.prod:2222"}) {
			t.Errorf("%s: %+v", name, hs)
		}
	}
	for _, bad := range []string{"app app1\n", "cache c1 c1\n", "app ../x x\n", "app a x\napp b y\n", "# nothing\n"} {
		if _, err := ParseFile(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestOffsetAndDrift(t *testing.T) {
	e := Entry{Before: &Clock{OffsetNS: int64(3 * time.Second), BoundNS: int64(200 * time.Microsecond)},
		After: &Clock{OffsetNS: int64(3*time.Second + 2*time.Millisecond), BoundNS: int64(300 * time.Microsecond)}}
	off, bound, ok := e.Offset()
	if !ok || off != 3*time.Second+time.Millisecond || bound != 300*time.Microsecond+time.Millisecond {
		t.Errorf("offset %v ±%v %v", off, bound, ok)
	}
	if d, ok := e.Drift(); !ok || d != 2*time.Millisecond {
		t.Errorf("drift %v %v", d, ok)
	}
	e.After = nil
	if off, bound, _ := e.Offset(); off != 3*time.Second || bound != 200*time.Microsecond {
		t.Errorf("before only: %v ±%v", off, bound)
	}
	if _, _, ok := (&Entry{}).Offset(); ok {
		t.Error("no measurement gave an offset")
	}
}

// copyTree copies a recorded run folder (a real one of the verdict's tests).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLoadShiftsOntoLocalTimeline: a host whose clock is 3 s ahead has
// every tick 3 s earlier once loaded; its decision is its folder's.
func TestLoadShiftsOntoLocalTimeline(t *testing.T) {
	src := "../verdict/testdata/runs/disk-dd"
	dir := t.TempDir()
	copyTree(t, src, Dir(dir, "db1"))
	copyTree(t, "../verdict/testdata/runs/healthy", Dir(dir, "app1"))
	off := 3 * time.Second
	m := &Manifest{Hosts: []Entry{
		{Host: Host{"app1", RoleApp, "app1"}},
		{Host: Host{"db1", RoleDB, "db1"}, Before: &Clock{OffsetNS: int64(off), BoundNS: 1e5}},
	}}
	if err := Write(dir, m); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e := r.Manifest.Hosts[1]; e.OffsetNS == nil || *e.OffsetNS != int64(off) || *e.BoundNS != 1e5 || r.Manifest.Hosts[0].OffsetNS != nil {
		t.Errorf("hosts.json does not say the offset applied: %+v", r.Manifest.Hosts)
	}
	plain, err := verdict.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	db := r.Hosts[1]
	if db.Err != nil || len(db.Layers.Series.Ticks) == 0 || len(db.Layers.Series.Ticks) != len(plain.Series.Ticks) {
		t.Fatalf("db host: %v", db.Err)
	}
	for i, tk := range db.Layers.Series.Ticks {
		if d := plain.Series.Ticks[i].T.Sub(tk.T); d != off {
			t.Fatalf("tick %d moved by %v, want %v", i, d, off)
		}
	}
	if !db.Aligned || db.Bound != 100*time.Microsecond {
		t.Errorf("aligned %v bound %v", db.Aligned, db.Bound)
	}
	if want := verdict.Decide(plain); (want.Verdict == nil) != (db.Decision.Verdict == nil) ||
		want.Verdict != nil && want.Verdict.ID != db.Decision.Verdict.ID {
		t.Errorf("the db host's verdict changed with the shift: %+v vs %+v", db.Decision.Verdict, want.Verdict)
	}
	if r.App == nil || r.App.Entry.Name != "app1" || r.App.Layers.Load == nil {
		t.Errorf("app host: %+v", r.App)
	}
	// A host named "../x" in hosts.json is refused (the folder is untrusted).
	m.Hosts[0].Name = "../x"
	Write(dir, m)
	if _, err := Load(dir, nil); err == nil {
		t.Error("a host name leaving the folder was accepted")
	}
}

// socketDump is a dump with n threads in a socket read and one idle.
func socketDump(n int) *threaddump.Dump {
	d := &threaddump.Dump{}
	for range n {
		d.Threads = append(d.Threads, &threaddump.Thread{Name: "http-nio-8080-exec", State: threaddump.StateRunnable,
			Frames: []threaddump.Frame{{Method: "java.net.SocketInputStream.socketRead0"}, {Method: "java.net.SocketInputStream.read"},
				{Method: "com.mysql.cj.protocol.ReadAheadInputStream.fill"}}})
	}
	d.Threads = append(d.Threads, &threaddump.Thread{Name: "idle", State: threaddump.StateWaiting,
		Frames: []threaddump.Frame{{Method: "jdk.internal.misc.Unsafe.park"}}})
	return d
}

func TestCrossHost(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	app := &HostRun{Entry: Entry{Host: Host{"app1", RoleApp, "app1"}}, Bound: time.Millisecond, Aligned: true,
		Layers: &verdict.Layers{Dumps: []*threaddump.Dump{socketDump(6), socketDump(5)}, DumpTimes: []time.Time{t0.Add(2500 * time.Millisecond), t0.Add(4500 * time.Millisecond)}}}
	dbWith := func(util float64) *HostRun {
		s := &diagnose.Series{}
		for i := 1; i <= 6; i++ {
			s.Ticks = append(s.Ticks, diagnose.Tick{T: t0.Add(time.Duration(i) * time.Second), Secs: 1, All: &diagnose.CPU{User: 10, Idle: 60, Iowait: 30},
				Disks: []diagnose.Disk{{Name: "sdb", Util: util, RAwait: 48, WAwait: 12, AquSz: 9.5}}})
		}
		return &HostRun{Entry: Entry{Host: Host{"db1", RoleDB, "db1"}}, Bound: time.Millisecond, Aligned: true, Layers: &verdict.Layers{Series: s}}
	}
	f, ok := CrossHost(app, dbWith(97))
	if !ok {
		t.Fatal("saturated db disk while app threads read sockets: not said")
	}
	if f.Title.EN != "the db host's disk is saturated while app threads wait in socket reads to it" || f.Subject != "db1" {
		t.Errorf("title %q subject %q", f.Title.EN, f.Subject)
	}
	ev := ""
	for _, e := range f.Evidence {
		ev += e.Key + "=" + e.Value + " (" + e.Source + ")\n"
	}
	for _, want := range []string{"at 12:00:02.500=6 app threads in socket reads; db1 host disk sdb util 97%, r_await 48.0 ms", "clock_bound_ms=±2.0"} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence lacks %q:\n%s", want, ev)
		}
	}
	// Only when both hold.
	if _, ok := CrossHost(app, dbWith(40)); ok {
		t.Error("said with the db disk at 40%")
	}
	quiet := &HostRun{Entry: app.Entry, Aligned: true, Layers: &verdict.Layers{Dumps: []*threaddump.Dump{socketDump(1), socketDump(0)}, DumpTimes: app.Layers.DumpTimes}}
	if _, ok := CrossHost(quiet, dbWith(97)); ok {
		t.Error("said with no app threads waiting in socket reads")
	}
	// A clock not measured: its moments cannot be compared.
	unmeasured := *app
	unmeasured.Aligned = false
	if _, ok := CrossHost(&unmeasured, dbWith(97)); ok {
		t.Error("said with the app host's clock not measured")
	}
	// The app's dumps outside the db host's recording (clocks not aligned).
	late := &HostRun{Entry: app.Entry, Aligned: true, Layers: &verdict.Layers{Dumps: app.Layers.Dumps, DumpTimes: []time.Time{t0.Add(time.Hour), t0.Add(time.Hour)}}}
	if _, ok := CrossHost(late, dbWith(97)); ok {
		t.Error("said for moments the db host did not record")
	}
}

// FuzzParseFile: any hosts file is read or refused, never a panic, and
// what is read names folders safely.
func FuzzParseFile(f *testing.F) {
	f.Add("app app1 deploy@10.0.0.5\ndb db1 db1:2222\n")
	f.Add("hosts:\n  - {name: a, role: app, address: x}\n")
	f.Add("hosts: [{name: '../..', address: y}]")
	f.Fuzz(func(t *testing.T, s string) {
		hs, err := ParseFile(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, h := range hs {
			if safeName(h.Name) != h.Name || h.Address == "" || !validRole(h.Role) {
				t.Fatalf("accepted %+v", h)
			}
		}
	})
}

// TestLoadCrossHost puts two real recordings on one timeline: an app whose
// threads wait in socket reads (remote-call) and a host whose disk was
// saturated (disk-dd, as the db host). Only with the db host's clock
// offset that lines its saturated seconds up with the app's dumps does
// the run say the cross-host line.
func TestLoadCrossHost(t *testing.T) {
	db, err := verdict.Load("../verdict/testdata/runs/disk-dd")
	if err != nil {
		t.Fatal(err)
	}
	var sat *diagnose.Tick
	for i := range db.Series.Ticks {
		for _, d := range db.Series.Ticks[i].Disks {
			if d.Util >= 95 && sat == nil {
				sat = &db.Series.Ticks[i]
			}
		}
	}
	if sat == nil {
		t.Fatal("disk-dd has no saturated tick")
	}
	for _, c := range []struct {
		name  string
		align bool
	}{{"aligned", true}, {"not aligned", false}} {
		dir := t.TempDir()
		copyTree(t, "../verdict/testdata/runs/remote-call", Dir(dir, "app1"))
		copyTree(t, "../verdict/testdata/runs/disk-dd", Dir(dir, "db1"))
		// The app's dumps at one moment (a dump's time is its file's mtime).
		at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
		dumps, _ := filepath.Glob(filepath.Join(Dir(dir, "app1"), "raw", "threaddump-*.txt"))
		for _, p := range dumps {
			os.Chtimes(p, at, at)
		}
		// Remote - local such that the saturated tick ends half a tick after at.
		off := sat.T.Sub(at) - time.Duration(sat.Secs*float64(time.Second)/2)
		if !c.align {
			off = 0
		}
		m := &Manifest{Hosts: []Entry{{Host: Host{"app1", RoleApp, "app1"}, Before: &Clock{BoundNS: 1e5}},
			{Host: Host{"db1", RoleDB, "db1"}, Before: &Clock{OffsetNS: int64(off), BoundNS: 2e5}}}}
		if err := Write(dir, m); err != nil {
			t.Fatal(err)
		}
		r, err := Load(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(dumps) == 0 || r.App == nil || len(r.App.Layers.Dumps) != len(dumps) {
			t.Fatalf("%s: app dumps %d", c.name, len(dumps))
		}
		if c.align != (r.Cross != nil) {
			t.Fatalf("%s: cross-host line %v", c.name, r.Cross)
		}
		if r.Cross != nil {
			t.Logf("%s: %s\n%+v", c.name, r.Cross.Observed.EN, r.Cross.Evidence)
			if !strings.Contains(r.Cross.Evidence[0].Value, "app threads in socket reads; db1 host disk ") {
				t.Errorf("evidence: %+v", r.Cross.Evidence)
			}
		}
	}
}
