package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/tuneloop/tuneloop/internal/testchild"
)

// profiledService burns CPU, allocates and has four threads queue on one
// monitor whose holder sleeps, until killed.
const profiledService = `public class Prof {
  static final Object gate = new Object();
  static volatile Object sink;
  static double burn(int n) { double x = 0; for (int i = 1; i < n; i++) x += Math.sqrt(i) / i; return x; }
  static void allocate() { for (int i = 0; i < 300; i++) sink = new byte[4096]; }
  static void holdGate() throws Exception { synchronized (gate) { Thread.sleep(20); } }
  public static void main(String[] a) throws Exception {
    for (int t = 0; t < 4; t++) new Thread(() -> { try { while (true) holdGate(); } catch (Exception e) {} }, "waiter-" + t).start();
    System.out.println("ready");
    double s = 0;
    while (true) { s += burn(100000); allocate(); if (s < 0) break; }
  } }`

func startProfiledJVM(t *testing.T) int {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	src := filepath.Join(t.TempDir(), "Prof.java")
	if err := os.WriteFile(src, []byte(profiledService), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, "-Xmx256m", src)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testchild.ReapJVM(cmd) })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the service said %q", line)
	}
	return cmd.Process.Pid
}

// `jvm PID --profile lock` writes the four files and names the monitor and
// the method that waits on it; `--profile cpu -o json` names the burner.
func TestJVMProfileWritesFiles(t *testing.T) {
	pid := startProfiledJVM(t)
	dir := t.TempDir()
	env, out, _ := testEnv()
	err := RunJVM(context.Background(), env, &JVMOptions{PID: pid, Profile: "lock", Duration: 2 * time.Second, Out: dir,
		Output: "text", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"lock profile", "Top frames by self", "[lock] java.lang.Object", "Top frames by total", "Prof.holdGate", "profile.html"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "profile.html"))
	if err != nil || !bytes.Contains(page, []byte("Prof.holdGate")) || !bytes.Contains(page, []byte(`id="flame"`)) {
		t.Errorf("profile.html: %v, %d bytes", err, len(page))
	}
	jfr, err := os.ReadFile(filepath.Join(dir, "recording.jfr"))
	if err != nil || !bytes.HasPrefix(jfr, []byte("FLR\x00")) {
		t.Errorf("recording.jfr: %v", err)
	}
	col, err := os.ReadFile(filepath.Join(dir, "profile.collapsed"))
	if err != nil || !bytes.Contains(col, []byte("Prof.holdGate;[lock] java.lang.Object ")) {
		t.Errorf("profile.collapsed: %v\n%.300s", err, col)
	}
	f, err := os.Open(filepath.Join(dir, "profile.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pp, err := profile.Parse(f)
	if err != nil || pp.SampleType[0].Unit != "nanoseconds" || len(pp.Sample) == 0 {
		t.Errorf("profile.pb.gz: %v", err)
	}

	env, out, _ = testEnv()
	dir2 := filepath.Join(t.TempDir(), "cpu")
	if err := RunJVM(context.Background(), env, &JVMOptions{PID: pid, Profile: "cpu", Duration: 2 * time.Second, Out: dir2,
		Output: "json", Lang: "zh", Timeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema string `json:"schema"`
		Kind   string `json:"kind"`
		BySelf []struct {
			Frame string `json:"frame"`
		} `json:"by_self"`
		Files map[string]string `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Kind != "cpu" || len(doc.BySelf) == 0 || !strings.Contains(doc.BySelf[0].Frame, "Prof.burn") || doc.Files["html"] == "" {
		t.Errorf("json: %+v", doc)
	}
}

func TestJVMProfileUsage(t *testing.T) {
	env, _, _ := testEnv()
	if code := runRoot(t, env, "jvm", "1", "--profile", "cpu", "-d", "0s"); code != ExitUsage {
		t.Errorf("-d 0s: exit %d, want %d", code, ExitUsage)
	}
	env, _, errb := testEnv()
	if code := runRoot(t, env, "jvm", "1", "--profile", "itimer"); code != ExitUsage || !strings.Contains(errb.String(), "--profile") {
		t.Errorf("--profile itimer: exit %d: %s", code, errb)
	}
}

// `jvm PID --profile native` samples the JVM's stacks on the CPU: the
// burner's Java frames are named through its perf map, down into libjvm
// and the kernel; no JFR recording is written.
func TestJVMProfileNative(t *testing.T) {
	pid := startProfiledJVM(t)
	time.Sleep(time.Second) // burn gets compiled
	dir := t.TempDir()
	env, out, _ := testEnv()
	err := RunJVM(context.Background(), env, &JVMOptions{PID: pid, Profile: "native", Duration: 2 * time.Second, Out: dir, Output: "json"})
	if err != nil {
		if strings.Contains(err.Error(), "perf_event_open") {
			t.Skipf("cannot sample here: %v", err)
		}
		t.Fatal(err)
	}
	var doc struct {
		Kind    string `json:"kind"`
		Events  int    `json:"events"`
		ByTotal []struct {
			Frame string `json:"frame"`
		} `json:"by_total"`
		Notes []struct {
			EN string `json:"en"`
		} `json:"notes"`
		Files map[string]string `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	java := false
	for _, f := range doc.ByTotal {
		if strings.Contains(f.Frame, "Prof") && strings.HasSuffix(f.Frame, "_[j]") {
			java = true
		}
	}
	named := ""
	for _, n := range doc.Notes {
		if strings.Contains(n.EN, "JIT frames named") {
			named = n.EN
		}
	}
	t.Logf("%d samples; %s", doc.Events, named)
	if doc.Kind != "native" || doc.Events == 0 || !java || named == "" {
		t.Errorf("native profile: kind %q, %d samples, Java frame named %v, note %q; top %v", doc.Kind, doc.Events, java, named, doc.ByTotal)
	}
	if doc.Files["jfr"] != "" || doc.Files["html"] == "" || doc.Files["collapsed"] == "" {
		t.Errorf("files: %v", doc.Files)
	}
}
