package threadrole_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/jvm/threadrole"
	"github.com/tuneloop/tuneloop/internal/testchild"
)

// checkCommAgrees checks, for every thread of a dump whose kernel name is
// known (by its native id), that the 15-byte kernel name classifies as the
// full name and stack do: the JVM's threads stay the JVM's, and a thread a
// name decided gets the same role from its cut name.
func checkCommAgrees(t *testing.T, src string, d *threaddump.Dump, comm map[int64]string) (paired int) {
	t.Helper()
	for _, th := range d.Threads {
		c, ok := comm[th.NativeID]
		if !ok {
			continue
		}
		paired++
		var st []string
		for _, f := range th.Frames {
			st = append(st, f.Method)
		}
		full := threadrole.Classify(th.Name, st)
		cut := threadrole.ClassifyComm(c)
		if full.Kind.Internal() != cut.Kind.Internal() {
			t.Errorf("%s: %q (comm %q): %s by name and stack, %s by comm", src, th.Name, c, full, cut)
			continue
		}
		// A cut name may say it cannot tell (Shared): a Jetty acceptor's
		// "qtp1530870688-1", Reactor's "boundedElastic-" (a worker or the evictor).
		if full.By == "name" && cut.Kind != full.Kind && !cut.Shared && c != "java" {
			t.Errorf("%s: %q (comm %q): %s by name, %s by comm", src, th.Name, c, full, cut)
		}
	}
	return paired
}

// readComm reads "tid<TAB>comm" lines.
func readComm(t *testing.T, p string) map[int64]string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		tid, name, ok := strings.Cut(line, "\t")
		n, err := strconv.ParseInt(tid, 10, 64)
		if !ok || err != nil {
			t.Fatalf("%s: bad line %q", p, line)
		}
		out[n] = name
	}
	return out
}

func parseDump(t *testing.T, p string) *threaddump.Dump {
	t.Helper()
	ds := parseDumps(t, p)
	if len(ds) != 1 {
		t.Fatalf("%s: %d dumps", p, len(ds))
	}
	return ds[0]
}

func parseDumps(t *testing.T, p string) []*threaddump.Dump {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := threaddump.ParseText(f)
	if err != nil || len(ds) == 0 {
		t.Fatalf("%s: %d dumps, %v", p, len(ds), err)
	}
	return ds
}

// The framework JVMs of testdata/ (SOURCES.md): their kernel names, taken
// with the first dump, agree with their dumps.
func TestCommAgreesFrameworkDumps(t *testing.T) {
	for _, jdk := range []string{"17", "25"} {
		comm := readComm(t, "testdata/frameworks-jdk"+jdk+".comm.tsv")
		src := "testdata/frameworks-jdk" + jdk + "-1.txt"
		if n := checkCommAgrees(t, src, parseDump(t, src), comm); n < 60 {
			t.Errorf("%s: only %d threads paired with a kernel name", src, n)
		}
	}
}

// A JVM started here: every thread's /proc comm against its jcmd dump.
func TestCommAgreesLiveJVM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	jcmd := "jcmd"
	if real, err := filepath.EvalSymlinks(java); err == nil {
		if p := filepath.Join(filepath.Dir(real), "jcmd"); fileExists(p) {
			jcmd = p
		}
	}
	if _, err := exec.LookPath(jcmd); err != nil {
		t.Skip("no jcmd next to java")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	// Its own working folder: jcmd's attach writes .attach_pid<pid> there.
	src, err := filepath.Abs(filepath.Join("testdata", "java", "NamedThreads.java"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, java, src, "60")
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
	pid := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
			pid, _ = strconv.Atoi(rest)
			break
		}
	}
	if pid == 0 {
		t.Fatalf("NamedThreads did not start: %s", stderr.String())
	}
	dumpText, err := exec.Command(jcmd, strconv.Itoa(pid), "Thread.print").Output()
	if err != nil {
		t.Fatalf("jcmd: %v", err)
	}
	comm := map[int64]string{}
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "comm"))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no tasks of %d: %v", pid, err)
	}
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that ended
		}
		tid, _ := strconv.ParseInt(filepath.Base(filepath.Dir(p)), 10, 64)
		comm[tid] = strings.TrimRight(string(b), "\n")
	}
	ds, err := threaddump.ParseText(bytes.NewReader(dumpText))
	if err != nil || len(ds) != 1 {
		t.Fatalf("dump: %d, %v", len(ds), err)
	}
	if n := checkCommAgrees(t, "live", ds[0], comm); n < 20 {
		t.Errorf("only %d threads paired", n)
	}
	// The JVM's own threads by their kernel names alone.
	seen := map[threadrole.Kind]bool{}
	for _, c := range comm {
		seen[threadrole.ClassifyComm(c).Kind] = true
	}
	for _, k := range []threadrole.Kind{threadrole.JIT, threadrole.GC, threadrole.VM, threadrole.Main, threadrole.RequestWorker, threadrole.EventLoop, threadrole.Acceptor, threadrole.DBPool} {
		if !seen[k] {
			t.Errorf("no %s thread among the kernel names %v", k, comm)
		}
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
