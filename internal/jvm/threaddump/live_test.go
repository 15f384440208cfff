package threaddump

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/testchild"
)

// startJava runs one of testdata/java's programs with the java on PATH and
// returns its pid once it printed READY, and the jcmd of the same JDK.
func startJava(t *testing.T, src string) (pid int, jcmd string) {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	jcmd = "jcmd"
	if real, err := filepath.EvalSymlinks(java); err == nil {
		if p := filepath.Join(filepath.Dir(real), "jcmd"); fileExists(p) {
			jcmd = p
		}
	}
	if _, err := exec.LookPath(jcmd); err != nil {
		t.Skip("no jcmd next to java")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	// The JVM runs in a folder of its own: jcmd's attach writes
	// .attach_pid<pid> into the target's working folder, which must not be
	// testdata (other packages' tests read it meanwhile).
	abs, err := filepath.Abs(filepath.Join("testdata", "java", src))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, java, abs, "60")
	cmd.Dir = t.TempDir()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel() // kills only the JVM this test started
		testchild.ReapJVM(cmd)
	})
	ready := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
				n, _ := strconv.Atoi(rest)
				ready <- n
				return
			}
		}
		close(ready)
	}()
	select {
	case pid, ok := <-ready:
		if !ok || pid == 0 {
			t.Fatalf("%s did not start: %s", src, stderr.String())
		}
		return pid, jcmd
	case <-time.After(80 * time.Second):
		t.Fatalf("%s: no READY: %s", src, stderr.String())
	}
	return 0, ""
}

func fileExists(p string) bool {
	_, err := exec.LookPath(p)
	return err == nil
}

func liveDump(t *testing.T, src string) *Dump {
	t.Helper()
	pid, jcmd := startJava(t, src)
	out, err := exec.Command(jcmd, strconv.Itoa(pid), "Thread.print", "-l", "-e").Output()
	if err != nil {
		// -e is JDK 15+; retry without it on older JDKs.
		out, err = exec.Command(jcmd, strconv.Itoa(pid), "Thread.print", "-l").Output()
	}
	if err != nil {
		t.Fatalf("jcmd: %v", err)
	}
	ds, err := Parse("live "+src, bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].PID != int64(pid) {
		t.Fatalf("dumps %d pid %d", len(ds), ds[0].PID)
	}
	return ds[0]
}

// A live JVM on this machine: dump it and check the diagnosis.
func TestLiveJVM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	t.Run("deadlock", func(t *testing.T) {
		r := Analyze(liveDump(t, "Deadlock.java"))
		if len(r.Deadlocks) != 2 {
			t.Fatalf("deadlocks %d", len(r.Deadlocks))
		}
		names := map[string]bool{}
		for _, dl := range r.Deadlocks {
			if !dl.Detected {
				t.Errorf("%v not detected by cycle search", dl.Names)
			}
			for _, n := range dl.Names {
				names[n] = true
			}
		}
		for _, n := range []string{"transfer-1", "transfer-2", "reserve-1", "reserve-2"} {
			if !names[n] {
				t.Errorf("%s not in a deadlock", n)
			}
		}
	})
	t.Run("logback", func(t *testing.T) {
		src := filepath.Join("ch", "qos", "logback", "core", "LogbackLike.java")
		pid, jcmd := startJava(t, src)
		// On a starved host a thread that wants the lock may still be
		// RUNNABLE and unscheduled rather than parked, so one dump can miss
		// the queue: sample up to 10 dumps and require the diagnosis in 3.
		holders, seen := 0, 0
		var last []string
		for i := 0; i < 10 && (seen < 3 || holders == 0); i++ {
			out, err := exec.Command(jcmd, strconv.Itoa(pid), "Thread.print", "-l").Output()
			if err != nil {
				t.Fatalf("jcmd: %v", err)
			}
			ds, err := Parse("live", bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			r := Analyze(ds[0])
			c := findCulprit(r, "threaddump.lock.logback-appender")
			if c == nil || len(c.Threads) < 10 { // 30 threads log in a loop
				last = culpritIDs(r)
				continue
			}
			seen++
			// A dump can catch the lock in hand-off (released, next owner not yet running).
			if c.Holder != nil {
				holders++
			}
		}
		if seen < 3 {
			t.Fatalf("the appender lock culprit (>= 10 waiters) in %d of 10 dumps; last culprits %v", seen, last)
		}
		if holders == 0 {
			t.Errorf("no holder found in the dumps that showed the queue")
		}
	})
}
