package experiment

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/launch"
)

// procLine is the line of /proc/PID/FILE starting with prefix, blanks
// collapsed.
func procLine(t *testing.T, pid int, file, prefix string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	t.Fatalf("/proc/%d/%s has no %q", pid, file, prefix)
	return ""
}

// A start command launched through the gate: the limits and the CPU set
// are on it, and on the process it starts, before either runs.
func TestLaunchGateSetsLimitsAndBinding(t *testing.T) {
	o := Overlay{Limits: []LimitSet{{Resource: "nofile", Value: "4096:8192"}, {Resource: "core", Value: "0"}}, Binding: "0"}
	b, err := resolveBinding(o.Binding, "/sys")
	if err != nil {
		t.Fatal(err)
	}
	// Not exec'd: sleep is the shell's child and must inherit both.
	svc, err := launch.Start(gateCommand(o.Command("sleep 30; true", os.Getenv), &b, ""), filepath.Join(t.TempDir(), "svc.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	sh := svc.Cmd.Process.Pid
	if err := openGate(sh, o.Limits, &b); err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", sh, sh))
		child, _ = strconv.Atoi(strings.TrimSpace(string(kids)))
	}
	if child == 0 {
		t.Fatal("the start command started nothing")
	}
	for _, pid := range []int{sh, child} {
		if got := procLine(t, pid, "limits", "Max open files"); got != "Max open files 4096 8192 files" {
			t.Errorf("pid %d: %q", pid, got)
		}
		if got := procLine(t, pid, "limits", "Max core file size"); got != "Max core file size 0 0 bytes" {
			t.Errorf("pid %d: %q", pid, got)
		}
		if got := procLine(t, pid, "status", "Cpus_allowed_list"); got != "Cpus_allowed_list: 0" {
			t.Errorf("pid %d: %q", pid, got)
		}
		seen, bads := checkLaunch("/proc", pid, o.Limits, &b)
		if len(bads) > 0 || !strings.Contains(strings.Join(seen, ";"), "nofile 4096:8192") {
			t.Errorf("pid %d: check says %v %v", pid, seen, bads)
		}
	}
	// And the check fails when the value is not what was asked.
	if _, bads := checkLaunch("/proc", child, []LimitSet{{Resource: "nofile", Value: "1024"}}, &Binding{Value: "1", CPUs: []int{1}, Node: -1}); len(bads) != 2 ||
		!strings.Contains(bads[0].EN, "nofile=1024 did not take effect") || !strings.Contains(bads[1].ZH, "未生效") {
		t.Errorf("mismatch not reported: %v", bads)
	}
}

// Through the experiment: an arm whose limit cannot be set (nofile above
// fs.nr_open, refused even to root) is refused with the reason, the one
// that can is measured and read back, and soft < hard is refused saying
// the service (a Go program, as a JVM would) raised its soft nofile to the
// hard limit itself; node:N without numactl is refused
// naming the node's CPUs, a CPU list is measured.
func TestExperimentLimitAndBindingKnobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a service per trial")
	}
	var mu sync.Mutex
	var notes []string
	note := func(m finding.Text) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, m.EN)
	}
	p := childPlan(t, 1, 1, Knob{Name: "files", Kind: KindLimit, Key: "nofile", Values: []string{"unlimited", "8192", "4096:8192"}})
	out := t.TempDir()
	doc, err := Conduct(context.Background(), Options{Plan: p, Out: out, Runner: hostRunner(t, p, hostfs.Live(), out, note)})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, a := range doc.Arms {
		status[strings.Join(a.Values, ",")] = a.Status + " " + a.Why.EN
	}
	if s := status["unlimited"]; !strings.HasPrefix(s, "refused") || !strings.Contains(s, "limit nofile=unlimited could not be set") {
		t.Errorf("unlimited nofile: %q", s)
	}
	if s := status["8192"]; strings.HasPrefix(s, "refused") {
		t.Errorf("8192 nofile: %q", s)
	}
	if s := status["4096:8192"]; !strings.HasPrefix(s, "refused") || !strings.Contains(s, "raised its soft limit toward the hard one itself") {
		t.Errorf("4096:8192 nofile on a Go service: %q", s)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "runs with nofile 8192:8192") {
		t.Errorf("no read-back noted:\n%s", strings.Join(notes, "\n"))
	}
	if !strings.Contains(doc.Overlay.EN, "read back from /proc/PID/limits") || !strings.Contains(doc.Overlay.ZH, "/proc/PID/limits") {
		t.Errorf("the report does not say how limits are set: %+v", doc.Overlay)
	}
	found := false
	for _, c := range doc.Changes {
		found = found || c.What == "limit nofile=8192" && c.Undone
	}
	if !found {
		t.Errorf("changes %+v", doc.Changes)
	}

	p = childPlan(t, 1, 1, Knob{Name: "cpus", Kind: KindBinding, Values: []string{"0", "node:0"}})
	out = t.TempDir()
	notes = nil
	doc, err = Conduct(context.Background(), Options{Plan: p, Out: out, Runner: hostRunner(t, p, hostfs.Live(), out, note)})
	if err != nil {
		t.Fatal(err)
	}
	status = map[string]string{}
	for _, a := range doc.Arms {
		status[strings.Join(a.Values, ",")] = a.Status + " " + a.Why.EN
	}
	if s := status["0"]; strings.HasPrefix(s, "refused") {
		t.Errorf("binding 0: %q", s)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "Cpus_allowed_list 0;") {
		t.Errorf("no binding read back:\n%s", strings.Join(notes, "\n"))
	}
	if _, err := exec.LookPath("numactl"); err != nil {
		if s := status["node:0"]; !strings.HasPrefix(s, "refused") || !strings.Contains(s, "numactl is not installed") {
			t.Errorf("node:0 without numactl: %q", s)
		}
	}
}

// javaService writes a small Java HTTP service that reads the file named by
// the system property app.config ("delay=MS") and sleeps that long per
// request; its start command serves on addr.
func javaService(t *testing.T, addr string) string {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java")
	}
	dir := t.TempDir()
	src := `import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
public class Svc {
  public static void main(String[] a) throws Exception {
    String path = System.getProperty("app.config");
    int delay = 50;
    if (path != null) delay = Integer.parseInt(Files.readString(Path.of(path)).trim().replace("delay=", ""));
    final int d = delay;
    final byte[] out = ("config " + path + "\n").getBytes();
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(System.getenv("PORT"))), 128);
    s.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(8));
    s.createContext("/", ex -> {
      try { Thread.sleep(d); } catch (InterruptedException e) { }
      ex.sendResponseHeaders(200, out.length);
      ex.getResponseBody().write(out);
      ex.close();
    });
    s.start();
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "Svc.java"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(addr, ":")
	return fmt.Sprintf("PORT=%s exec %s -Xmx64m %s", port, shellQuote(java), shellQuote(filepath.Join(dir, "Svc.java")))
}

// A real JVM told by a config-file knob which of two files to read (a slow
// and a fast delay) and by a property knob a value it must show: the plan
// names the files relative to itself, each trial gets a copy in its
// folder, the property pointing at the copy is read back from the JVM, the
// faster file wins, and the originals are byte for byte unchanged.
func TestExperimentConfigFileOnAJVM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM per trial")
	}
	addr := freeAddr(t)
	start := javaService(t, addr)
	dir := t.TempDir()
	slow, fast := "delay=100\n", "delay=2\n"
	for name, body := range map[string]string{"slow.conf": slow, "fast.conf": fast} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	yml := fmt.Sprintf(`service:
  start: %q
  target: http://%s/
  start_timeout: 60s
  stop_timeout: 5s
load:
  users: 4
  duration: 3s
repetitions: 1
confirm_repetitions: 2
knobs:
  - name: conf
    kind: config-file
    key: app.config
    baseline: slow.conf
    values: [fast.conf]
  - name: mode
    kind: property
    key: app.mode
    values: [tuned]
`, start, addr)
	planPath := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(planPath, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ReadPlanFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Knobs[0].Values[0]; got != filepath.Join(dir, "fast.conf") {
		t.Fatalf("config file resolved to %q, want it next to the plan", got)
	}
	out := t.TempDir()
	doc, err := Conduct(context.Background(), Options{Plan: p, Out: out, Runner: hostRunner(t, p, hostfs.Live(), out, nil)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range doc.Trials {
		if tr.Status != "done" {
			t.Fatalf("trial %+v not done; arms %+v", tr, doc.Arms)
		}
		copies, _ := filepath.Glob(filepath.Join(tr.Dir, "config", "conf-*.conf"))
		if len(copies) != 1 {
			t.Errorf("trial %d: copies in its folder %v", tr.Seq, copies)
			continue
		}
		if b, _ := os.ReadFile(copies[0]); string(b) != slow && string(b) != fast {
			t.Errorf("trial %d: copy holds %q", tr.Seq, b)
		}
	}
	// The winner reads the fast file (confirmed against the baseline).
	var win []string
	for _, a := range doc.Arms {
		if a.ID == doc.Winner {
			win = a.Values
		}
	}
	if len(win) != 2 || win[0] != filepath.Join(dir, "fast.conf") || doc.Confirm == nil || doc.Confirm.Objective == nil || doc.Confirm.Objective.Pct < 30 {
		t.Errorf("winner %q %v confirm %+v", doc.Winner, win, doc.Confirm)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "slow.conf")); string(b) != slow {
		t.Errorf("slow.conf is %q now", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "fast.conf")); string(b) != fast {
		t.Errorf("fast.conf is %q now", b)
	}
	if !strings.Contains(doc.Overlay.EN, "the originals only read") {
		t.Errorf("the report does not say how config files are used: %+v", doc.Overlay)
	}
	found := false
	for _, c := range doc.Changes {
		found = found || strings.HasPrefix(c.What, "config-file -Dapp.config=") && strings.Contains(c.Undo.EN, "only read")
	}
	if !found {
		t.Errorf("changes %+v", doc.Changes)
	}
}
