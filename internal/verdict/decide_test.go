package verdict

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// The fixtures under testdata/runs are real run folders: the zoo's
// scenarios recorded by `tuneloop run` on a 2-core VM
// (scripts/capture-verdict-fixtures.sh), and a host recorded while dd wrote
// to its disk with O_DIRECT. The softirq row reads the Kunpeng run of the
// diagnose package's tests (this VM has one virtual NIC queue and cannot
// concentrate NET_RX). Rows that need a second source combine real pieces:
// a public GC log from the OpenJDK test corpus, a load against a real
// server on 127.0.0.1 that never answers.

// copyRun copies a run folder into a temporary one the row may add to.
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// unansweredLoad loads a real server on 127.0.0.1 that accepts connections
// and never answers, and writes the load generator's summary as load.json.
func unansweredLoad(t *testing.T, dir string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	url := "http://" + ln.Addr().String() + "/api"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := loadgen.Generate(ctx, loadgen.Config{Requests: []loadgen.Request{{URL: url}}, Users: 4,
		Duration: 1500 * time.Millisecond, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, LoadFile), sum); err != nil {
		t.Fatal(err)
	}
}

// ioUnderLock is a real JDK 17 dump of three monitors whose holders block
// in file and socket I/O, a few threads queued on each (warning level).
const ioUnderLock = "../jvm/threaddump/testdata/jdk17_iounderlock_jcmd.txt"

// Real JDK 17 dumps (jcmd, 3 each) of the zoo's permit-starvation (a
// Semaphore of 2 permits whose holders sleep in a partner call) and
// queue-handoff (request threads put into a bounded queue one consumer
// drains) scenarios under load.
const (
	permitStarvation = "../jvm/threaddump/testdata/jdk17_zoo_permit-starvation_jcmd.txt"
	queueHandoff     = "../jvm/threaddump/testdata/jdk17_zoo_queue-handoff_jcmd.txt"
)

// dumpsOf replaces a run's thread dumps with the given dump files.
func dumpsOf(files ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		old, _ := filepath.Glob(filepath.Join(dir, "raw", "threaddump-*"))
		for _, f := range old {
			os.Remove(f)
		}
		for i, f := range files {
			copyFile(t, f, filepath.Join(dir, "raw", fmt.Sprintf("threaddump-%d.txt", i+1)))
		}
	}
}

func TestDecideBranches(t *testing.T) {
	const runs = "testdata/runs"
	rows := []struct {
		name    string
		src     string
		prepare func(t *testing.T, dir string)
		branch  Branch
		subject string // the root cause's finding key starts with it
	}{
		{name: "the service exited mid-run", src: runs + "/cpu-hot", prepare: serviceKilled, branch: ServiceExited, subject: IDServiceExited},
		{name: "the service stopped answering mid-run", src: runs + "/deadlock", prepare: serviceHung, branch: ServiceStalled, subject: "threaddump.deadlock"},
		{name: "the service ran out of memory and stopped answering", src: runs + "/service-oom", branch: ServiceStalled, subject: IDServiceOOM},
		{name: "the service stopped answering, its GC log throwing OutOfMemory", src: runs + "/service-oom", prepare: gcLogOOM, branch: ServiceStalled, subject: "gc.out-of-memory"},
		{name: "the service stopped answering in back-to-back full GCs", src: runs + "/service-oom", prepare: logWithoutOOM, branch: ServiceStalled, subject: IDServiceInGC},
		{name: "deadlock", src: runs + "/deadlock", branch: Deadlock, subject: "threaddump.deadlock"},
		{name: "service answers nothing", src: runs + "/healthy", prepare: unansweredLoad, branch: Unanswered, subject: IDHung},
		{name: "service answers nothing, its GC log ending in full GCs", src: runs + "/service-oom", prepare: neverAnswered, branch: Unanswered, subject: IDServiceInGC},
		{name: "the service stopped answering, its pool exhausted", src: runs + "/pool-starvation", prepare: serviceHung, branch: ServiceStalled, subject: "threaddump.jdbc-pool.hikaricp"},
		{name: "NIC softirq on one CPU", src: "../diagnose/testdata/runs/kunpeng-softirq", branch: Softirq, subject: "run.irq.softirq-concentrated"},
		{name: "serial stage", src: runs + "/single-thread", branch: SerialStage, subject: "run.thread.serial-bottleneck"},
		{name: "critical GC", src: runs + "/gc-pressure", branch: GCCritical, subject: "gc."},
		{name: "lock most working threads queue on", src: runs + "/sync-logging", branch: LockMost, subject: "threaddump.lock.logback"},
		{name: "lock most working threads queue on, with its JFR recording", src: runs + "/sync-logging-jfr", branch: LockMost, subject: "threaddump.lock.logback"},
		{name: "pool most working threads wait on", src: runs + "/pool-starvation", branch: LockMost, subject: "threaddump.jdbc-pool.hikaricp"},
		{name: "application lock most working threads queue on", src: runs + "/fsync-io", branch: LockMost, subject: "threaddump.lock.app"},
		{name: "lesser lock with CPU room", src: runs + "/healthy", prepare: dumpsOf(ioUnderLock), branch: LockCPURoom, subject: "threaddump.lock.app"},
		{name: "lesser lock on a saturated CPU", src: runs + "/cpu-hot", prepare: dumpsOf(ioUnderLock), branch: CPUSaturated, subject: "run.cpu.saturated"},
		{name: "GC at warning level", src: runs + "/healthy", branch: GC, subject: "gc.throughput-low",
			prepare: func(t *testing.T, dir string) {
				copyFile(t, "../jvm/gclog/testdata/corpus/openjdk_SampleSun1_5_0CMS_IncrementalPacing.txt", filepath.Join(dir, "raw", "gc-0.log"))
			}},
		{name: "CPU saturated", src: runs + "/cpu-hot", branch: CPUSaturated, subject: "run.cpu.saturated"},
		// JFR samples a few threads a period: the 50 busy workers' running
		// time is 83% of theirs, and the Tomcat poller's one long blocked
		// wait outweighs it in the request roles' book; the dumps see 99%
		// RUNNABLE and the JVM used 192% of the two cores.
		{name: "CPU saturated by the service, JFR's book led by a blocked poller", src: runs + "/cpu-hot-jfr", branch: CPUSaturated, subject: "run.cpu.saturated"},
		{name: "run queue longer than the CPUs, nothing more specific", src: runs + "/fsync-io", prepare: dumpsOf(), branch: HostTooSmall, subject: IDHostTooSmall},
		{name: "futures completed by a one-worker pool", src: runs + "/future-serial", branch: LockMost, subject: "threaddump.wait.executor"},
		{name: "a downstream that never answers", src: runs + "/remote-call", branch: LockMost, subject: "threaddump.wait.downstream"},
		{name: "permits of a Semaphore held by two sleeping threads", src: runs + "/healthy", prepare: dumpsOf(permitStarvation), branch: LockMost, subject: "threaddump.wait.permits/Semaphore com.example.zoo.RateGate.call"},
		{name: "a queue hand-off to one slow consumer", src: runs + "/healthy", prepare: dumpsOf(queueHandoff), branch: LockMost, subject: "threaddump.wait.queue/ArrayBlockingQueue.put com.example.zoo.Settlement.handle"},
		{name: "the load generator saturated its cores", src: runs + "/generator-saturated", branch: GeneratorSaturated, subject: IDGeneratorSaturated},
		{name: "TCP delayed ACK", src: runs + "/delayed-ack", branch: DelayedACK, subject: IDDelayedACK},
		{name: "closed-model waits off the CPUs, no dumps", src: runs + "/deadlock", prepare: dumpsOf(), branch: LatencyBound, subject: IDLatencyBound},
		// Other processes kept both CPUs busy; the service's one dispatcher
		// thread waited 98% of its time on a socket: not a CPU verdict.
		{name: "a blocking call on the one dispatcher thread, other processes keeping the CPUs busy", src: runs + "/dispatcher-cpu-others", branch: LatencyBound, subject: IDLatencyBound},
		{name: "disk saturated", src: runs + "/disk-dd", branch: IO, subject: "run.io."},
		{name: "NIC saturated, nothing more specific", src: runs + "/fsync-io", prepare: nicAt10Mbps, branch: IO, subject: "run.net.nic-saturated/eth0"},
		{name: "nothing", src: runs + "/healthy", branch: None},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			dir := copyRun(t, r.src)
			if r.prepare != nil {
				r.prepare(t, dir)
			}
			L, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			d := Decide(L)
			if d.Branch != r.branch {
				t.Fatalf("branch %q, want %q; verdict %v; findings %v", d.Branch, r.branch, title(d.Verdict), keys(d.Findings))
			}
			if r.branch == None {
				if d.Verdict != nil {
					t.Fatalf("a verdict on a run with no bottleneck: %s", d.Verdict.Title.EN)
				}
				return
			}
			v := d.Verdict
			if v == nil || !strings.HasPrefix(v.Subject, r.subject) {
				t.Fatalf("root cause %v, want %s...", title(v), r.subject)
			}
			if d.Findings[0].ID != ID {
				t.Errorf("the verdict is not ranked first: %s", d.Findings[0].ID)
			}
			if v.Severity < finding.Warning || v.Observed.EN == "" || v.Observed.ZH == "" || !strings.Contains(v.Observed.EN, "=> ") {
				t.Errorf("verdict without its evidence in both languages: %+v", v)
			}
			if L.Load != nil && r.branch != SerialStage && !strings.Contains(v.Observed.EN, "Load: ") {
				t.Errorf("the verdict does not state the load:\n%s", v.Observed.EN)
			}
		})
	}
}

// The verdict reads every layer of a folder once and leaves it unchanged.
func TestDecideDoesNotChangeLayers(t *testing.T) {
	L, err := Load("testdata/runs/sync-logging")
	if err != nil {
		t.Fatal(err)
	}
	before := keys(L.Recorded)
	sev := map[string]finding.Severity{}
	for _, f := range L.Recorded {
		sev[f.Key()] = f.Severity
	}
	a, b := Decide(L), Decide(L)
	if title(a.Verdict) != title(b.Verdict) || len(a.Findings) != len(b.Findings) {
		t.Fatalf("two decisions on the same layers differ: %v / %v", title(a.Verdict), title(b.Verdict))
	}
	for _, f := range L.Recorded {
		if sev[f.Key()] != f.Severity {
			t.Fatalf("Decide changed a recorded finding: %s", f.Key())
		}
	}
	if strings.Join(before, ",") != strings.Join(keys(L.Recorded), ",") {
		t.Fatal("Decide changed the recorded findings")
	}
	if len(L.Dumps) == 0 || len(L.Dumps) != len(L.Reports) || L.Load == nil || L.Check == nil {
		t.Fatalf("layers missing: %d dumps, %d reports, load %v, check %d", len(L.Dumps), len(L.Reports), L.Load != nil, len(L.Check))
	}
}

func title(f *finding.Finding) string {
	if f == nil {
		return "<none>"
	}
	return f.Subject + ": " + f.Title.EN
}

func keys(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Status == finding.Fail {
			out = append(out, f.Key()+"("+f.Severity.String()+")")
		}
	}
	return out
}

// serviceKilled marks a run's manifest as `run` does when the service was
// killed (kill -9) 5.2 s into the load, its log ending with a hostile line.
func serviceKilled(t *testing.T, dir string) {
	t.Helper()
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.Manifest.Service = &runfolder.ServiceEnd{PID: 4242, ExitCode: 137, Signal: "SIGKILL", AtS: 5.2,
		LastLog: []string{"INFO started", "WARN \x1b]0;PWN\x07heap almost full"}}
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, runfolder.ManifestFile), f.Manifest); err != nil {
		t.Fatal(err)
	}
}

// TestServiceExitedVerdict: the first line of the verdict says the service
// exited, with its code, when, and its last log line, sanitised.
func TestServiceExitedVerdict(t *testing.T) {
	dir := copyRun(t, "testdata/runs/cpu-hot")
	serviceKilled(t, dir)
	L, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := Decide(L).Verdict
	if v == nil {
		t.Fatal("no verdict")
	}
	want := "Root cause: The service exited with code 137 (SIGKILL) at +5.2 s of the load; last log lines: WARN"
	if !strings.HasPrefix(v.Title.EN, want) || strings.ContainsAny(v.Title.EN+v.Observed.EN, "\x1b\x07") {
		t.Errorf("title %q\nobserved %q", v.Title.EN, v.Observed.EN)
	}
	if !strings.Contains(v.Title.ZH, "137") || !strings.Contains(v.Observed.EN, "INFO started") {
		t.Errorf("zh %q / observed %q", v.Title.ZH, v.Observed.EN)
	}
}

// The endpoints of a downstream wait come from the target's sockets saved
// with the dumps: outbound connections only, not the service's clients.
func TestDownstreamEndpointsFromSockets(t *testing.T) {
	down, err := net.Listen("tcp", "127.0.0.1:0") // a downstream that never answers
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	svc, err := net.Listen("tcp", "127.0.0.1:0") // the service's own port
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", down.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	client, err := net.Dial("tcp", svc.Addr().String()) // a client of the service
	if err != nil {
		t.Fatal(err)
	}
	conns = append(conns, client)
	in, err := svc.Accept()
	if err != nil {
		t.Fatal(err)
	}
	conns = append(conns, in)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	dir := copyRun(t, "testdata/runs/remote-call")
	snap := sysinfo.ProcessSockets(fmt.Sprintf("/proc/%d", os.Getpid()))
	if len(snap) == 0 {
		t.Skip("no /proc/self/net/tcp here")
	}
	if err := os.WriteFile(filepath.Join(dir, SocketsPrefix+"1.txt"), snap, 0o644); err != nil {
		t.Fatal(err)
	}
	L, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := down.Addr().String()
	if len(L.Downstream) == 0 || L.Downstream[0].Remote != want || L.Downstream[0].Conns != 3 {
		t.Fatalf("downstream %+v, want %s with 3 connections", L.Downstream, want)
	}
	d := Decide(L)
	if d.Branch != LockMost || !strings.Contains(d.Verdict.Observed.EN, want) || !strings.Contains(d.Verdict.Observed.ZH, want) {
		t.Errorf("the verdict does not name the endpoint %s:\n%s", want, d.Verdict.Observed.EN)
	}
}

// serviceHung marks a run's manifest as `run` does when the service stopped
// answering 3.1 s into the load (its dumps show a deadlock).
func serviceHung(t *testing.T, dir string) {
	t.Helper()
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.Manifest.Service = &runfolder.ServiceEnd{PID: 4242, ExitCode: -1, AtS: 3.1, Hung: true}
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, runfolder.ManifestFile), f.Manifest); err != nil {
		t.Fatal(err)
	}
}

// nicAt10Mbps makes a run's real traffic (~8-12 Mb/s, recorded over
// loopback: no fixture moved bytes over a physical NIC) eth0's, eth0's link
// a 10 Mb/s one (mis-negotiated), and removes the dumps so nothing more
// specific than the saturated link applies.
func nicAt10Mbps(t *testing.T, dir string) {
	t.Helper()
	dumpsOf()(t, dir)
	name := filepath.Join(dir, runfolder.SamplesFile)
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var snap map[string]json.RawMessage
		var devs []map[string]json.RawMessage
		if json.Unmarshal(line, &snap) == nil && snap["net"] != nil && json.Unmarshal(snap["net"], &devs) == nil {
			var lo, eth0 map[string]json.RawMessage
			for _, d := range devs {
				switch string(d["dev"]) {
				case `"lo"`:
					lo = d
				case `"eth0"`:
					eth0 = d
				}
			}
			for _, k := range []string{"rb", "rp", "tb", "tp"} {
				a, err1 := strconv.ParseUint(string(lo[k]), 10, 64)
				b, err2 := strconv.ParseUint(string(eth0[k]), 10, 64)
				if err1 != nil || err2 != nil {
					t.Fatalf("counter %s: %s, %s", k, lo[k], eth0[k])
				}
				eth0[k] = json.RawMessage(strconv.FormatUint(a+b, 10))
			}
			snap["net"], _ = json.Marshal(devs)
			line, _ = json.Marshal(snap)
		}
		zw.Write(line)
		zw.Write([]byte{'\n'})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Manifest.Facts.NICs.Value {
		if f.Manifest.Facts.NICs.Value[i].Name == "eth0" {
			f.Manifest.Facts.NICs.Value[i].SpeedMbps = 10
		}
	}
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, runfolder.ManifestFile), f.Manifest); err != nil {
		t.Fatal(err)
	}
}

// TestServiceStalledNamesTheDeadlock: a service that stopped answering is
// the verdict's first line, with the cause its dumps show.
func TestServiceStalledNamesTheDeadlock(t *testing.T) {
	dir := copyRun(t, "testdata/runs/deadlock")
	serviceHung(t, dir)
	L, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := Decide(L).Verdict
	if v == nil || !strings.HasPrefix(v.Title.EN, "Root cause: The service stopped answering at +3.1 s of the load: ") ||
		!strings.Contains(strings.ToLower(v.Title.EN), "deadlock") {
		t.Fatalf("verdict %v", title(v))
	}
}

// A run folder is untrusted: a GC log that links out of the folder, or
// load.json as a link to a device, is said and not read; the rest is still
// diagnosed.
func TestLoadReadsFolderAsUntrusted(t *testing.T) {
	dir := copyRun(t, "testdata/runs/healthy")
	outside := filepath.Join(t.TempDir(), "gc.log")
	copyFile(t, "../jvm/gclog/testdata/corpus/openjdk_SampleSun1_5_0CMS_IncrementalPacing.txt", outside)
	if err := os.Symlink(outside, filepath.Join(dir, "raw", "gc-0.log")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, LoadFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, LoadFile)); err != nil {
		t.Fatal(err)
	}
	L, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if L.GC != nil || L.Load != nil {
		t.Fatalf("read through links: GC %v, load %v", L.GC != nil, L.Load != nil)
	}
	var said []string
	for _, p := range L.Problems {
		said = append(said, p.Subject)
	}
	if !slices.Contains(said, LoadFile) || !slices.Contains(said, "raw/gc-0.log") {
		t.Errorf("the links are not said: %v", said)
	}
	if L.Series == nil || len(L.Dumps) == 0 {
		t.Errorf("the rest of the folder was not read")
	}
}

// A wait's servers are joined to the recorder's per-thread samples by nid:
// the one worker that completes the futures is named with what the
// recorder saw of it (on a CPU, waiting for one, or off the CPUs).
func TestWaitServersJoinedToRecorder(t *testing.T) {
	L, err := Load("testdata/runs/future-serial")
	if err != nil {
		t.Fatal(err)
	}
	v := Decide(L).Verdict
	if v == nil || !strings.Contains(v.Observed.EN, "Servers, as the recorder sampled them: ") || !strings.Contains(v.Observed.EN, "quote-pricer") ||
		!strings.Contains(v.Observed.ZH, "服务方线程（记录器采样）") {
		t.Fatalf("the servers are not joined to the recorder:\n%s", title(v)+"\n"+v.Observed.EN)
	}
	t.Log(v.Observed.EN)
}

// The serial stage's verdict says what each task costs and where the stage
// caps throughput: its one worker busy in every dump, load.json's TPS. With
// no throughput measured it says nothing of the kind.
func TestSerialStageCost(t *testing.T) {
	L, err := Load("testdata/runs/future-serial")
	if err != nil {
		t.Fatal(err)
	}
	v := Decide(L).Verdict
	en := `Stage: 1 busy worker(s) of pool "quote-pricer-N" served 19.0 req/s: ~53 ms per task; this stage caps throughput near 19/s (every worker busy in all 4 dumps`
	zh := `阶段：线程池 "quote-pricer-N" 的 1 个繁忙工作线程处理了 19.0 请求/秒：每个任务约 53 ms；该阶段把吞吐限制在约 19/秒`
	if v == nil || !strings.Contains(v.Observed.EN, en) || !strings.Contains(v.Observed.ZH, zh) {
		t.Fatalf("no cost per task in the verdict:\n%s", v.Observed.EN+"\n"+v.Observed.ZH)
	}
	if got := v.EvidenceValue("stage_ms_per_task"); got != "52.6" {
		t.Errorf("stage_ms_per_task %q, want 52.6 (1 worker / 19 req/s)", got)
	}
	dir := copyRun(t, "testdata/runs/future-serial")
	if err := os.Remove(filepath.Join(dir, LoadFile)); err != nil {
		t.Fatal(err)
	}
	if L, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	d := Decide(L)
	if d.Branch != LockMost || strings.Contains(d.Verdict.Observed.EN, "per task") || d.Verdict.EvidenceValue("stage_ms_per_task") != "" {
		t.Errorf("a cost per task without a measured throughput (%s):\n%s", d.Branch, d.Verdict.Observed.EN)
	}
}

// logWithoutOOM keeps the service-oom run as recorded but for the
// OutOfMemoryError lines of its log tail: what is left to say why it hung
// is its GC log, which ends in full GCs back to back.
func logWithoutOOM(t *testing.T, dir string) {
	t.Helper()
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	se := f.Manifest.Service
	kept := se.LastLog[:0:0]
	for _, l := range se.LastLog {
		if !strings.Contains(l, "OutOfMemoryError") {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(se.LastLog) {
		t.Fatal("the service-oom fixture's log has no OutOfMemoryError")
	}
	se.LastLog = kept
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, runfolder.ManifestFile), f.Manifest); err != nil {
		t.Fatal(err)
	}
}

// TestServiceStalledOutOfMemory: a real JVM (-Xmx32m, a handler that keeps
// 32 KiB of every request) whose OutOfMemoryError ended its HTTP dispatcher
// thread: the verdict says it stopped answering because it ran out of
// memory, quotes the log line, and adds that its GC log ends in full GCs.
func TestServiceStalledOutOfMemory(t *testing.T) {
	L, err := Load("testdata/runs/service-oom")
	if err != nil {
		t.Fatal(err)
	}
	v := Decide(L).Verdict
	if v == nil {
		t.Fatal("no verdict")
	}
	for _, want := range []string{"Root cause: The service stopped answering at +4.0 s of the load: it ran out of memory",
		`java.lang.OutOfMemoryError thrown from the UncaughtExceptionHandler in thread "HTTP-Dispatcher"`,
		"GC log: the last 12 pauses came back to back over ", "-XX:+ExitOnOutOfMemoryError"} {
		if !strings.Contains(v.Title.EN+"\n"+v.Observed.EN+"\n"+v.Recommended.EN, want) {
			t.Errorf("the verdict lacks %q:\n%s\n%s", want, v.Title.EN, v.Observed.EN)
		}
	}
	if !strings.Contains(v.Title.ZH, "内存耗尽") || !strings.Contains(v.Observed.ZH, "Full GC") {
		t.Errorf("zh: %s\n%s", v.Title.ZH, v.Observed.ZH)
	}
	if v.EvidenceValue("oom_log_line") == "" || v.EvidenceValue("full_gcs_at_end") != "" {
		t.Errorf("evidence %+v", v.Evidence)
	}
	// The same run with the log's OOM lines gone: the GC log is the cause,
	// its numbers as read from the log's last pauses.
	dir := copyRun(t, "testdata/runs/service-oom")
	logWithoutOOM(t, dir)
	if L, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	v = Decide(L).Verdict
	if v == nil || !strings.Contains(v.Title.EN, "collecting garbage back to back") || v.EvidenceValue("full_gcs_at_end") != "8 of 12 pauses" {
		t.Fatalf("verdict %s\n%s\nevidence %+v", title(v), v.Observed.EN, v.Evidence)
	}
}

// A GC log that does not end in full GCs back to back (gc-pressure's
// 64 MiB heap collected ~1,850 times, none of it stuck) is not "in GC"; a
// log with no OutOfMemoryError is not "out of memory".
func TestHungCausesNeedTheirEvidence(t *testing.T) {
	L, err := Load("testdata/runs/gc-pressure")
	if err != nil {
		t.Fatal(err)
	}
	if len(L.GCPauses) < 1000 {
		t.Fatalf("the gc-pressure run has %d GC pauses", len(L.GCPauses))
	}
	if g := gcAtEnd(L); g != nil {
		t.Errorf("a busy GC log read as back-to-back full GCs: %s", g.Observed.EN)
	}
	se := &runfolder.ServiceEnd{LastLog: []string{"INFO started", "WARN slow request 812 ms", "ERROR java.net.SocketTimeoutException: Read timed out"}}
	if f := outOfMemory(se); f != nil {
		t.Errorf("out of memory read in %q", se.LastLog)
	}
	se.LastLog = append(se.LastLog, `Exception in thread "http-nio-8080-exec-3" java.lang.OutOfMemoryError: GC overhead limit exceeded`)
	if f := outOfMemory(se); f == nil || !strings.Contains(f.Observed.EN, "1 of its last 4 lines") {
		t.Errorf("the OutOfMemoryError line was not read: %+v", f)
	}
}

// The permit and queue verdicts name the serving side from the dumps: the
// permit holders and what they run, the queue's one consumer. The dumps
// are of another process than the run's recorder sampled (jcmd's pid
// line): the servers are not joined to its thread samples.
func TestWaitVerdictsNameTheServers(t *testing.T) {
	for _, c := range []struct {
		dumps string
		want  []string
	}{
		{permitStarvation, []string{"wait for a permit of a Semaphore in com.example.zoo.RateGate.call(RateGate.java:37)",
			`2 thread(s) run the guarded code ("http-nio-28180-exec-21", "http-nio-28180-exec-26"), sleeping in com.example.zoo.RateGate.partner`}},
		{queueHandoff, []string{"wait in ArrayBlockingQueue.put in com.example.zoo.Settlement.handle(Settlement.java:76)",
			`served by 1 thread(s) on the other side ("settlement-consumer-1"), sleeping in com.example.zoo.Settlement.settle`}},
	} {
		dir := copyRun(t, "testdata/runs/healthy")
		dumpsOf(c.dumps)(t, dir)
		L, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		v := Decide(L).Verdict
		if v == nil {
			t.Fatalf("%s: no verdict", c.dumps)
		}
		for _, w := range c.want {
			if !strings.Contains(v.Observed.EN, w) {
				t.Errorf("%s: the verdict lacks %q:\n%s", filepath.Base(c.dumps), w, v.Observed.EN)
			}
		}
		if strings.Contains(v.Observed.EN, "Servers, as the recorder sampled them") {
			t.Errorf("%s: another process's threads joined to this run's samples:\n%s", filepath.Base(c.dumps), v.Observed.EN)
		}
		if v.Observed.ZH == "" || !strings.Contains(v.Observed.ZH, "线程") {
			t.Errorf("no Chinese evidence: %q", v.Observed.ZH)
		}
	}
}

// The generator's verdict states its CPU and rate as load.json has them,
// in both languages (the Chinese sentence names the rate first).
func TestGeneratorSaturatedVerdict(t *testing.T) {
	L, err := Load("testdata/runs/generator-saturated")
	if err != nil {
		t.Fatal(err)
	}
	v := Decide(L).Verdict
	if v == nil || !strings.Contains(v.Observed.EN, "The load generator used 71% of the cores it runs on while it sent 1215 requests/s.") ||
		!strings.Contains(v.Observed.ZH, "压测工具在每秒发送 1215 个请求时占用了其可用 CPU 核的 71%。") ||
		v.EvidenceValue("load_generator_cpu_pct") != "71" {
		t.Fatalf("verdict %s\n%s\n%s", title(v), v.Observed.EN, v.Observed.ZH)
	}
}

// neverAnswered is the service-oom run as a load that got no answer at all
// (a real server on 127.0.0.1 that never answers) with no record of the
// service's end: what is left to say why is its GC log.
func neverAnswered(t *testing.T, dir string) {
	t.Helper()
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.Manifest.Service = nil
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, runfolder.ManifestFile), f.Manifest); err != nil {
		t.Fatal(err)
	}
	unansweredLoad(t, dir)
}

// gcLogOOM is the service-oom run with no OutOfMemoryError left in its log
// tail and, as its GC log, a public JRockit log (the gclog corpus) that
// says "Throwing OutOfMemory": the GC log alone says it ran out of memory.
func gcLogOOM(t *testing.T, dir string) {
	t.Helper()
	logWithoutOOM(t, dir)
	copyFile(t, "../jvm/gclog/testdata/jrockit/SampleJRockit1_6_gc_mode_singleparcon.txt", filepath.Join(dir, "raw", "gc-0.log"))
}
