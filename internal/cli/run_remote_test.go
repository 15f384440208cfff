package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/remote/sshdtest"
	"github.com/tuneloop/tuneloop/internal/session"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// twoHosts are two "hosts" (two sshd on this machine), the second with a
// clock 3 s ahead as its clock answerer sees it, and the options reaching
// both with a freshly built tuneloop.
func twoHosts(t *testing.T) (app, db *sshdtest.SSHD, ho hostOptions) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds tuneloop, starts two sshd")
	}
	app = sshdtest.Start(t)
	db = sshdtest.StartEnv(t, testClockSkewEnv+"=3s")
	exe := buildTuneloop(t)
	known := filepath.Join(t.TempDir(), "known_hosts")
	var kh []byte
	for _, d := range []*sshdtest.SSHD{app, db} {
		b, err := os.ReadFile(d.Known)
		if err != nil {
			t.Fatal(err)
		}
		kh = append(kh, b...)
	}
	if err := os.WriteFile(known, kh, 0o600); err != nil {
		t.Fatal(err)
	}
	return app, db, hostOptions{Hosts: []string{"app=" + app.Spec(), "db=" + db.Spec()},
		Identity: []string{app.UserKey, db.UserKey}, KnownHosts: known, Exe: exe}
}

// buildTuneloop builds the tuneloop binary the hosts are sent.
func buildTuneloop(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "tuneloop")
	build := exec.Command("go", "build", "-o", exe, "../../cmd/tuneloop")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return exe
}

// oneHost is the options reaching d alone with exe as the binary sent.
func oneHost(d *sshdtest.SSHD, exe string) hostOptions {
	return hostOptions{Hosts: []string{d.Spec()}, Identity: []string{d.UserKey}, KnownHosts: d.Known, Exe: exe}
}

// targetTmp lists the tuneloop folders in the target's /tmp as the target
// sees it (a namespaced sshd's /tmp is not this machine's).
func targetTmp(t *testing.T, d *sshdtest.SSHD) []string {
	t.Helper()
	cmd := exec.Command("nsenter", "-m", "-t", strconv.Itoa(d.Cmd.Process.Pid), "sh", "-c", "ls -d /tmp/tuneloop.* 2>/dev/null; true")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nsenter: %v", err)
	}
	return strings.Fields(string(out))
}

// TestRecordHostNoSudo: record --host --sudo on a host without sudo, and
// on one whose sudo refuses the user: exit 1, said in both languages with
// the host (and the user), nothing left there, nothing recorded.
func TestRecordHostNoSudo(t *testing.T) {
	// The target's PATH holds only what it names: no sudo, or a sudo
	// that refuses the user. Outside /tmp: the target has a /tmp of its own.
	var bare, refusing string
	for _, dir := range []*string{&bare, &refusing} {
		d, err := os.MkdirTemp("/var/tmp", "tuneloop-test-path-")
		if err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		*dir = d
	}
	for _, dir := range []string{bare, refusing} {
		for _, tool := range []string{"sh", "mktemp", "head", "wc", "chmod", "rm", "tail", "df", "tr", "timeout", "tar", "uname", "ls"} {
			p, err := exec.LookPath(tool)
			if err != nil {
				t.Skip(err)
			}
			if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
				t.Fatal(err)
			}
		}
	}
	exe := filepath.Join(t.TempDir(), "tuneloop") // never run there
	os.WriteFile(exe, []byte("#!/bin/sh\necho RAN >&2\n"), 0o755)
	for _, tc := range []struct {
		name, path, sudo string
		en, zh           string
	}{
		{"not installed", bare, "", "sudo is not installed on 127.0.0.1:", "上没有安装 sudo"},
		{"not a sudoer", refusing, "#!/bin/sh\necho \"Sorry, user $(id -un) may not run sudo on target.\" >&2\nexit 1\n", " may not run sudo on 127.0.0.1:", "无权在 127.0.0.1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sudo != "" {
				os.WriteFile(filepath.Join(tc.path, "sudo"), []byte(tc.sudo), 0o755)
			}
			// A private /tmp: what is left there is this test's, whatever
			// the other SSH tests leave in this machine's /tmp meanwhile.
			d := sshdtest.StartWith(t, sshdtest.Config{Env: []string{"PATH=" + tc.path}, TmpSize: "64m"})
			dir := filepath.Join(t.TempDir(), "rec")
			ho := oneHost(d, exe)
			ho.Sudo = true
			env, _, errb := testEnv()
			err := RunRecord(context.Background(), env, &RecordOptions{Duration: 2 * time.Second, Interval: 500 * time.Millisecond,
				Out: dir, NoCatalog: true, Output: "text", Remote: ho})
			if code := Code(env, err); code != ExitFailure {
				t.Errorf("exit code %d, want 1 (%v)", code, err)
			}
			en, zh := finding.Localize(err, finding.EN), finding.Localize(err, finding.ZH)
			if !strings.Contains(en, tc.en) || !strings.Contains(zh, tc.zh) || tc.sudo != "" && !strings.Contains(en, d.UserName+" may not run sudo") {
				t.Errorf("messages:\n%s\n%s", en, zh)
			}
			if strings.Contains(errb.String(), "RAN") {
				t.Error("tuneloop ran there")
			}
			if left := targetTmp(t, d); len(left) != 0 {
				t.Errorf("left on the target: %v", left)
			}
		})
	}
}

// TestRecordHostDiskFull: record --host on a target whose /tmp is a tiny
// tmpfs (its own mount namespace): the binary does not fit, then (a /tmp
// just larger than the binary) the run folder does not. Each is exit 1,
// "no space left on /tmp" with the host, what arrived kept here, nothing
// left there.
func TestRecordHostDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tuneloop")
	}
	exe := buildTuneloop(t)
	st, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, size, en, zh string
	}{
		{"binary", "2m", ": no space left on /tmp there: tuneloop needs ", "该主机 /tmp 空间不足：复制 tuneloop 需要"},
		// Two pages more than the binary: the recorder's first write (its
		// manifest, some 30 KiB of host facts) fails.
		{"run folder", strconv.FormatInt(st.Size()+8<<10, 10), ": no space left on /tmp there for the run folder", "该主机 /tmp 空间不足，无法写入运行目录"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := sshdtest.StartWith(t, sshdtest.Config{TmpSize: tc.size})
			dir := filepath.Join(t.TempDir(), "rec")
			env, _, errb := testEnv()
			err := RunRecord(context.Background(), env, &RecordOptions{Duration: 3 * time.Second, Interval: 200 * time.Millisecond,
				Out: dir, NoCatalog: true, Output: "text", Remote: oneHost(d, exe)})
			if code := Code(env, err); code != ExitFailure {
				t.Errorf("exit code %d, want 1 (%v)", code, err)
			}
			en, zh := finding.Localize(err, finding.EN), finding.Localize(err, finding.ZH)
			t.Logf("%s\n%s\nstderr: %s", en, zh, errb.String())
			if !strings.Contains(en, "127.0.0.1:"+strconv.Itoa(d.Port)+tc.en) || !strings.Contains(zh, tc.zh) {
				t.Errorf("messages:\n%s\n%s", en, zh)
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				t.Errorf("the local run folder: %v", err)
			}
			if left := targetTmp(t, d); len(left) != 0 {
				t.Errorf("left on the target: %v", left)
			}
		})
	}
}

// TestRunHostDiskFull: run --host app=A --host db=B where B's /tmp is a
// 2 MiB tmpfs: the run goes on with the app host, says the db host had no
// space left on /tmp (exit 1, both languages), and writes the run folder
// with what arrived: the load, the app host's recording, the report.
func TestRunHostDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tuneloop, starts two sshd")
	}
	app := sshdtest.Start(t)
	db := sshdtest.StartWith(t, sshdtest.Config{TmpSize: "2m"})
	known := filepath.Join(t.TempDir(), "known_hosts")
	var kh []byte
	for _, d := range []*sshdtest.SSHD{app, db} {
		b, err := os.ReadFile(d.Known)
		if err != nil {
			t.Fatal(err)
		}
		kh = append(kh, b...)
	}
	os.WriteFile(known, kh, 0o600)
	ho := hostOptions{Hosts: []string{"app=" + app.Spec(), "db=" + db.Spec()}, Identity: []string{app.UserKey, db.UserKey},
		KnownHosts: known, Exe: buildTuneloop(t)}
	dir := filepath.Join(t.TempDir(), "run")
	env, _, errb := testEnv()
	err := RunRun(context.Background(), env, &RunOptions{Target: tinyService(t), Users: 2, Duration: 2 * time.Second,
		Interval: 500 * time.Millisecond, Out: dir, Output: "text", NoCatalog: true, Remote: ho})
	if code := Code(env, err); code != ExitFailure {
		t.Fatalf("exit code %d, want 1: %v\n%s", code, err, errb.String())
	}
	en, zh := finding.Localize(err, finding.EN), finding.Localize(err, finding.ZH)
	t.Logf("%s\n%s", en, zh)
	dbAddr := "127.0.0.1:" + strconv.Itoa(db.Port)
	if !strings.Contains(en, "127.0.0.1-2: "+dbAddr+": no space left on /tmp there") || !strings.Contains(zh, "127.0.0.1-2："+dbAddr+"：该主机 /tmp 空间不足") {
		t.Errorf("the message does not say the db host's /tmp is full:\n%s\n%s", en, zh)
	}
	for _, f := range []string{"report.html", "load.json", "hosts.json", "hosts/127.0.0.1/manifest.json", "hosts/127.0.0.1/raw/samples.jsonl.gz"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("kept without %s: %v", f, err)
		}
	}
	m, err := multihost.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Hosts) != 2 || m.Hosts[0].Lost != nil || m.Hosts[1].Lost == nil || !strings.Contains(m.Hosts[1].Lost.EN, "no space left on /tmp") {
		t.Errorf("hosts.json: %+v", m.Hosts)
	}
	if left := targetTmp(t, db); len(left) != 0 {
		t.Errorf("left on the db host: %v", left)
	}
}

// tinyService answers after a millisecond: a service to load, no JVM.
func tinyService(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(time.Millisecond)
		w.Write([]byte("ok\n"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRunHosts: `run --target URL --host app=... --host db=...` loads here,
// records on both hosts over the run's window, measures their clocks and
// writes one folder: load.json, hosts.json, hosts/NAME per host, reports.
// The db host's clock reads 3 s ahead: its offset is measured within its
// bound before and after, and its series are moved by it when loaded.
func TestRunHosts(t *testing.T) {
	_, _, ho := twoHosts(t)
	url := tinyService(t)
	dir := filepath.Join(t.TempDir(), "run")
	env, out, errb := testEnv()
	o := &RunOptions{Target: url, Users: 2, Duration: 3 * time.Second, Interval: 500 * time.Millisecond, Out: dir,
		Output: "json", NoCatalog: true, Remote: ho}
	if err := RunRun(context.Background(), env, o); err != nil {
		t.Fatalf("run --host: %v\nstderr: %s", err, errb.String())
	}
	for _, f := range []string{"load.json", "hosts.json", "report.html", "report.json",
		"hosts/127.0.0.1/manifest.json", "hosts/127.0.0.1/raw/samples.jsonl.gz", "hosts/127.0.0.1/load.json",
		"hosts/127.0.0.1-2/manifest.json", "hosts/127.0.0.1-2/raw/samples.jsonl.gz"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the run folder lacks %s: %v", f, err)
		}
	}
	// report.json of a run over hosts follows the published schema.
	if b, err := os.ReadFile(filepath.Join(dir, "report.json")); err == nil {
		validateJSON(t, compileSchema(t, "run-page-v1.schema.json"), "run-page-v1.schema.json", b)
		if !bytes.Contains(b, []byte(`"hosts"`)) {
			t.Error("report.json has no hosts section")
		}
	}
	m, err := multihost.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Hosts) != 2 || m.Hosts[0].Role != "app" || m.Hosts[1].Role != "db" || m.Hosts[1].Arch == "" {
		t.Fatalf("hosts.json: %+v", m.Hosts)
	}
	for i, want := range []time.Duration{0, 3 * time.Second} {
		e := m.Hosts[i]
		for _, c := range []*multihost.Clock{e.Before, e.After} {
			if c == nil {
				t.Fatalf("%s: clock not measured before and after: %+v", e.Name, e)
			}
			off, bound := time.Duration(c.OffsetNS), time.Duration(c.BoundNS)
			if d := off - want; d < -bound || d > bound || bound > 100*time.Millisecond || c.Trips != multihost.ClockTrips {
				t.Errorf("%s: offset %v ±%v, want %v", e.Name, off, bound, want)
			}
		}
		if e.Lost != nil || e.Files < 2 {
			t.Errorf("%s: lost %v, %d files", e.Name, e.Lost, e.Files)
		}
	}
	// One timeline: the db host's ticks, as loaded, are its recorded ones
	// less its measured offset.
	r, err := multihost.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := verdict.Load(multihost.Dir(dir, "127.0.0.1-2"))
	if err != nil {
		t.Fatal(err)
	}
	db := r.Hosts[1]
	if len(raw.Series.Ticks) < 4 || len(db.Layers.Series.Ticks) != len(raw.Series.Ticks) {
		t.Fatalf("db ticks: %d", len(raw.Series.Ticks))
	}
	if d := raw.Series.Ticks[0].T.Sub(db.Layers.Series.Ticks[0].T); d != db.Shift || d < 2900*time.Millisecond {
		t.Errorf("db series moved by %v, offset %v", d, db.Shift)
	}
	// Every host recorded over the whole load.
	var load struct {
		Start    time.Time `json:"start"`
		Duration float64   `json:"duration_s"`
		Requests int64     `json:"requests"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "load.json"))
	if err := json.Unmarshal(b, &load); err != nil || load.Requests == 0 {
		t.Fatalf("load.json: %v %s", err, b)
	}
	end := load.Start.Add(time.Duration(load.Duration * float64(time.Second)))
	for _, h := range r.Hosts {
		// As recorded: only the clock answerer of the db "host" is skewed,
		// its recorder reads this machine's clock like the load.
		raw, err := verdict.Load(multihost.Dir(dir, h.Entry.Name))
		if err != nil {
			t.Fatal(err)
		}
		ts := raw.Series.Ticks
		if first, last := ts[0].T.Add(-time.Duration(ts[0].Secs*float64(time.Second))), ts[len(ts)-1].T; first.After(load.Start) || last.Before(end.Add(-time.Second)) {
			t.Errorf("%s recorded %s..%s, the load ran %s..%s", h.Entry.Name, first.Format("15:04:05.000"), last.Format("15:04:05.000"),
				load.Start.Format("15:04:05.000"), end.Format("15:04:05.000"))
		}
	}
	// The report: the usual run page, with the hosts' section.
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, want := range []string{`id="sec-hosts"`, "127.0.0.1-2", "3000."} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "report.md")); !strings.Contains(string(md), "## Hosts (one timeline)") {
		t.Error("report.md lacks the hosts' section")
	}
	var doc struct {
		Hosts struct {
			Hosts []struct {
				Name     string  `json:"name"`
				OffsetMS float64 `json:"offset_ms"`
				BoundMS  float64 `json:"bound_ms"`
			} `json:"hosts"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Hosts.Hosts) != 2 {
		t.Fatalf("stdout JSON: %v %.300s", err, out.String())
	}
	// The summary in Chinese: each host, its clock and the bound.
	env, out, _ = testEnv()
	res, err := session.ReportHosts(context.Background(), dir, nil, finding.ZH)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeHosts(env.Stdout, res, "text", finding.ZH, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("text summary:\n%s", out.String())
	for _, want := range []string{"主机：", "127.0.0.1-2 [db]", "时钟偏差 +30", "已移到本机时间轴", "运行期间漂移"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the Chinese summary lacks %q", want)
		}
	}
	// The app host's folder alone is a run folder giving the same verdict.
	appL, err := verdict.Load(multihost.Dir(dir, "127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := verdict.Decide(appL).Verdict, r.App.Decision.Verdict; (a == nil) != (b == nil) || a != nil && a.Key() != b.Key() {
		t.Errorf("the app folder alone: %v, in the run: %v", a, b)
	}
}

// TestRunHostLost kills the db host's sshd during the run: the run ends,
// says which host was lost (in both languages), and keeps what arrived.
func TestRunHostLost(t *testing.T) {
	_, db, ho := twoHosts(t)
	url := tinyService(t)
	dir := filepath.Join(t.TempDir(), "run")
	env, _, errb := testEnv()
	o := &RunOptions{Target: url, Users: 2, Duration: 5 * time.Second, Interval: 500 * time.Millisecond, Out: dir,
		Output: "text", NoCatalog: true, Remote: ho}
	go func() {
		// Once the db host records (its samples folder exists there), cut it.
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			ms, _ := filepath.Glob("/tmp/tuneloop.*/run/raw/samples.jsonl.gz")
			if len(ms) >= 2 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(1500 * time.Millisecond)
		// The processes serving its connections: the connection is cut,
		// the host stays up (what it recorded is fetched again).
		for _, pid := range db.Children(t) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	start := time.Now()
	err := RunRun(context.Background(), env, o)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure {
		t.Fatalf("a lost host: %v (stderr %s)", err, errb.String())
	}
	if took := time.Since(start); took > 90*time.Second {
		t.Errorf("the run took %v", took)
	}
	en, zh := finding.Localize(err, finding.EN), finding.Localize(err, finding.ZH)
	if !strings.Contains(en, "127.0.0.1-2: connection to 127.0.0.1:") || !strings.Contains(en, "lost") || !strings.Contains(zh, "127.0.0.1-2：与 127.0.0.1:") || !strings.Contains(zh, "中断") {
		t.Errorf("the message does not name the lost host:\n%s\n%s", en, zh)
	}
	m, rerr := multihost.Read(dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if m.Hosts[0].Lost != nil || m.Hosts[1].Lost == nil || m.Hosts[1].After != nil {
		t.Errorf("hosts.json: app lost %v, db lost %v after %v", m.Hosts[0].Lost, m.Hosts[1].Lost, m.Hosts[1].After)
	}
	// What arrived: the app host whole, the db host's folder as it stood
	// (fetched over a new connection), its samples up to the cut.
	for _, f := range []string{"report.html", "load.json", "hosts/127.0.0.1/raw/samples.jsonl.gz", "hosts/127.0.0.1-2/manifest.json", "hosts/127.0.0.1-2/raw/samples.jsonl.gz"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("kept without %s: %v", f, err)
		}
	}
}

// spinService burns about 20 ms of CPU per request in its own process (the
// bench-gate's workserver): with 4 users on this small machine the CPUs
// saturate, whoever records them. Not in the test's own process: there the
// service's CPU would count as the load generator's, and the verdict could
// as well blame the generator.
func spinService(t *testing.T) string {
	dir := t.TempDir()
	bin := filepath.Join(dir, "workserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../../scripts/testdata/workserver").CombinedOutput(); err != nil {
		t.Fatalf("building workserver: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "-addr", addr, "-units", "200000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := "http://" + addr + "/"
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("workserver did not answer on %s", addr)
		}
	}
}

// TestRunHostSameVerdict: the same service and load, recorded here by a
// local run and through sshd by run --host: the same verdict, to its family
// (run.cpu.*): the two runs are seconds apart on a shared machine, and
// whether others' load made the CPUs "saturated" or "near saturation or
// oversubscribed" is the machine's doing, not the transport's (CI saw one
// of each).
func TestRunHostSameVerdict(t *testing.T) {
	app, _, ho := twoHosts(t)
	ho.Hosts = []string{"app=" + app.Spec()}
	url := spinService(t)
	dirs := map[bool]string{}
	verdictOf := func(remote bool) string {
		dir := filepath.Join(t.TempDir(), "run")
		dirs[remote] = dir
		env, out, errb := testEnv()
		o := &RunOptions{Target: url, Users: 4, Duration: 4 * time.Second, Interval: 500 * time.Millisecond, Out: dir,
			Output: "json", NoCatalog: true}
		if remote {
			o.Remote = ho
		}
		if err := RunRun(context.Background(), env, o); err != nil {
			t.Fatalf("remote %v: %v\n%s", remote, err, errb.String())
		}
		var doc struct {
			Verdict *struct {
				Subject string `json:"subject"`
				Title   struct {
					EN string `json:"en"`
				} `json:"title"`
				Observed struct {
					EN string `json:"en"`
				} `json:"observed"`
			} `json:"verdict"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Verdict == nil {
			return "none"
		}
		t.Logf("remote %v: %s\n%s", remote, doc.Verdict.Title.EN, doc.Verdict.Observed.EN)
		return doc.Verdict.Subject + ": " + doc.Verdict.Title.EN
	}
	// family is a verdict's id up to its second dot: run.cpu of run.cpu.saturated.
	family := func(v string) string {
		id, _, _ := strings.Cut(v, "/")
		if parts := strings.SplitN(id, ".", 3); len(parts) == 3 {
			return parts[0] + "." + parts[1]
		}
		return id
	}
	local, remote := verdictOf(false), verdictOf(true)
	t.Logf("local %s, --host %s", local, remote)
	if family(local) != family(remote) || family(local) == "none" {
		// Keep both folders: what the two recordings saw is the question.
		keep, _ := os.MkdirTemp("", "TestRunHostSameVerdict-")
		for remote, dir := range dirs {
			if err := os.CopyFS(filepath.Join(keep, strconv.FormatBool(remote)), os.DirFS(dir)); err != nil {
				t.Log(err)
			}
		}
		t.Errorf("verdict of a local run %q, of run --host %q (both folders kept in %s)", local, remote, keep)
	}
}

// TestRecordHosts: record --hosts FILE records both hosts at once into one
// folder, without a load.
func TestRecordHosts(t *testing.T) {
	app, db, ho := twoHosts(t)
	file := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(file, []byte("# role name address\napp app1 "+app.Spec()+"\ndb db1 "+db.Spec()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ho.Hosts, ho.File = nil, file
	dir := filepath.Join(t.TempDir(), "rec")
	env, out, errb := testEnv()
	if err := RunRecord(context.Background(), env, &RecordOptions{Duration: 2 * time.Second, Interval: 500 * time.Millisecond,
		Out: dir, NoCatalog: true, Output: "text", Remote: ho}); err != nil {
		t.Fatalf("record --hosts: %v\n%s", err, errb.String())
	}
	for _, f := range []string{"hosts.json", "report.html", "hosts/app1/manifest.json", "hosts/db1/raw/samples.jsonl.gz"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the folder lacks %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "load.json")); err == nil {
		t.Error("a record wrote a load result")
	}
	for _, want := range []string{"app1 [app]", "db1 [db]", "clock +3000."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errb.String(), "db1 (amd64): clock offset +300") && !strings.Contains(errb.String(), "db1 (arm64): clock offset +300") {
		t.Errorf("the clock offset was not said while running:\n%s", errb.String())
	}
}

// TestJVMHost: jvm --host attaches there (a real JVM on the "host"), the
// report is printed here and the raw outputs come back into --raw.
func TestJVMHost(t *testing.T) {
	app, _, ho := twoHosts(t)
	pid := startTestJVM(t)
	host := hostOptions{Host: app.Spec(), Identity: ho.Identity, KnownHosts: ho.KnownHosts, Exe: ho.Exe}
	raw := filepath.Join(t.TempDir(), "raw")
	env, out, errb := testEnv()
	if err := RunJVM(context.Background(), env, &JVMOptions{PID: pid, Dumps: 1, Interval: time.Second, Output: "json", Timeout: 5 * time.Second,
		Raw: raw, Remote: host}); err != nil {
		t.Fatalf("jvm --host: %v\n%s", err, errb.String())
	}
	var doc struct {
		PID   int
		Dumps []json.RawMessage
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.PID != pid || len(doc.Dumps) != 1 {
		t.Fatalf("the report printed here: %v %.300s", err, out.String())
	}
	ents, _ := os.ReadDir(raw)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) < 2 || !strings.Contains(strings.Join(names, " "), session.JVMStdout) {
		t.Errorf("the raw outputs did not come back: %v", names)
	}
	// Without a PID: the host's JVMs.
	env, out, _ = testEnv()
	if err := RunJVM(context.Background(), env, &JVMOptions{Output: "text", Remote: host}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), strconv.Itoa(pid)+" ") {
		t.Errorf("the host's JVMs lack %d:\n%s", pid, out.String())
	}
}
