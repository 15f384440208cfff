package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

const busyJava = `public class Busy {
    public static void main(String[] a) throws Exception {
        for (int i = 0; i < 20; i++) {
            Thread t = new Thread(() -> {
                try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
            }, "idle-" + i);
            t.setDaemon(true);
            t.start();
        }
        Thread hot = new Thread(() -> {
            long x = 0;
            while (true) { x++; if (x == Long.MIN_VALUE) System.out.println(x); }
        }, "hot-worker");
        hot.setDaemon(true);
        hot.start();
        Thread.sleep(1000); // let the JIT settle
        System.out.println("ready");
        System.in.read();
    }
}
`

// A real JVM with one busy thread among 20 sleeping ones: the serial
// bottleneck names the Java thread (the JVM gives each thread its name as
// the native thread name, so TID and name match jstack's nid and name).
func TestRecordJavaSerialThread(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM and records for 3 s")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	src := filepath.Join(t.TempDir(), "Busy.java")
	if err := os.WriteFile(src, []byte(busyJava), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", src)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill() // our own child, by its PID
			<-done
		}
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the JVM exited before it was ready")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the JVM did not start in 30 s")
	}
	r, dir := recordJSON(t, cmd.Process.Pid, 3*time.Second, func(o *RecordOptions) { o.ThreadDumps = 1 })
	f := recFinding(r.Findings, diagnose.IDSerialThread)
	if f == nil {
		t.Fatalf("no %s; got %v (stats %+v)", diagnose.IDSerialThread, recKeys(r.Findings), r.Stats)
	}
	if !strings.Contains(f.Observed.EN, `"hot-worker" tid=`) || !strings.Contains(f.Fix.Apply, "tuneloop jvm ") {
		t.Errorf("Java thread not named: %s / %s", f.Observed.EN, f.Fix.Apply)
	}
	// The thread dump taken during the run joins the thread to its stack.
	m, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if why := m.Manifest.Unavailable["threaddump"]; why != "" {
		t.Skipf("no thread dump on this host: %s", why)
	}
	if !slices.Contains(m.Manifest.Raw, "raw/threaddump-1.txt") {
		t.Fatalf("no dump recorded: %v", m.Manifest.Raw)
	}
	if !strings.Contains(f.Observed.EN, `Java thread "hot-worker", RUNNABLE, at Busy.lambda$main$`) {
		t.Errorf("not joined to the dump: %s", f.Observed.EN)
	}
}
