package threadrole_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/jvm/threadrole"
)

// corpusDumps are every real thread dump in the repository: the parser's
// corpus (JDK 6-25 HotSpot, OpenJ9 javacores, WebLogic, TDA's public
// dumps), the zoo's dumps of verdict's run folders, and the framework dumps
// of testdata/ (SOURCES.md).
func corpusDumps(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, glob := range []string{
		"../threaddump/testdata/*", "../threaddump/testdata/*/*",
		"../../verdict/testdata/runs/*/raw/threaddump-*.txt", "testdata/*.txt",
	} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			// Hidden files are no dumps (a JVM's .attach_pid<pid>, gone a moment later).
			if st, err := os.Stat(p); err == nil && !st.IsDir() && !strings.HasPrefix(filepath.Base(p), ".") && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".java") && !strings.HasSuffix(p, ".sh") {
				out = append(out, p)
			}
		}
	}
	if len(out) < 50 {
		t.Fatalf("only %d dumps found", len(out))
	}
	return out
}

func globFiles(t *testing.T, glob string) []string {
	t.Helper()
	m, err := filepath.Glob(glob)
	if err != nil || len(m) == 0 {
		t.Fatalf("%s: %v (%d files)", glob, err, len(m))
	}
	return m
}

type corpusThread struct {
	file string
	t    *threaddump.Thread
	role threadrole.Role
}

func readCorpus(t *testing.T) []corpusThread {
	t.Helper()
	var out []corpusThread
	for _, p := range corpusDumps(t) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		ds, _ := threaddump.ParseText(f) // JSON dumps and scripts: no threads
		f.Close()
		for _, d := range ds {
			for _, th := range d.Threads {
				// The carrier's own frames (a JDK 25 carrier prints the
				// mounted virtual thread's apart).
				var st []string
				for _, fr := range th.Frames {
					st = append(st, fr.Method)
				}
				out = append(out, corpusThread{file: filepath.Base(p), t: th, role: threadrole.Classify(th.Name, st)})
			}
		}
	}
	return out
}

// jvmThreadName is, independently of the rules, the names HotSpot and
// OpenJ9 give their own threads (from their sources: compileBroker.cpp,
// gcTaskThread, g1ConcurrentMarkThread, vmThread.cpp, jfrRecorder.cpp,
// attachListener.cpp; OpenJ9's jit and gc thread creation).
var jvmThreadName = regexp.MustCompile(`^(?:VM Thread|VM Periodic Task Thread|Signal Dispatcher|Service Thread|Monitor Deflation Thread|` +
	`Notification Thread|Sweeper thread|Common-Cleaner|Finalizer|Reference Handler|Attach Listener|Low Memory Detector|` +
	`Surrogate Locker Thread.*|Suspend Checker Thread|C[12] CompilerThread\d+|CompilerThread\d+|GC Thread#\d+|G1 .*|` +
	`GC task thread#.*|Gang worker#.*|ParGC Thread#\d+|Concurrent Mark-Sweep GC Thread|JFR .*|` +
	`JIT .*|JIT-.*|IProfiler|GC Slave|GC Worker|Signal Reporter|Signal dispatcher)$`)

// No thread of the JVM's own (by name, or a VM-internal thread: no Java
// thread id, no frames, no Java state) is ever taken for a thread that
// serves requests, in any dump; every one is classified as the JVM's.
func TestCorpusJVMThreadsNeverServe(t *testing.T) {
	threads := readCorpus(t)
	jvm := 0
	for _, c := range threads {
		internalByShape := c.t.ID == 0 && len(c.t.Frames) == 0 && c.t.State == threaddump.StateNone && !c.t.Virtual &&
			strings.Contains(c.file, "jcmd") // jcmd/jstack print VM-internal threads without "#id"
		if !jvmThreadName.MatchString(c.t.Name) && !internalByShape {
			continue
		}
		jvm++
		if c.role.Kind.Serving() {
			t.Errorf("%s: JVM thread %q classified %s", c.file, c.t.Name, c.role)
		}
		if !c.role.Kind.Internal() {
			t.Errorf("%s: JVM thread %q classified %s, not a JVM role", c.file, c.t.Name, c.role)
		}
	}
	if jvm < 200 {
		t.Errorf("only %d JVM threads in the corpus", jvm)
	}
	t.Logf("%d threads, %d of them the JVM's", len(threads), jvm)
}

// What the corpus's services are, read from their dumps: the zoo's Tomcat
// (sync-logging), the corpus's JDK HttpServer services and library dumps.
func TestCorpusRoles(t *testing.T) {
	threads := readCorpus(t)
	byKind := map[threadrole.Kind]int{}
	by := map[string]int{}
	for _, c := range threads {
		byKind[c.role.Kind]++
		by[c.role.By]++
		switch {
		case strings.Contains(c.t.Name, "-exec-") && strings.HasPrefix(c.t.Name, "http-"):
			if c.role.Kind != threadrole.RequestWorker || c.role.Framework != "tomcat" {
				t.Errorf("%s: %q: %s", c.file, c.t.Name, c.role)
			}
		case strings.HasSuffix(c.t.Name, "-Poller") && strings.HasPrefix(c.t.Name, "http-"):
			if c.role.Kind != threadrole.EventLoop {
				t.Errorf("%s: %q: %s", c.file, c.t.Name, c.role)
			}
		}
		// Every thread running a JDK HttpServer exchange serves requests:
		// on the dispatcher (an event loop) or on an executor's thread.
		for _, f := range c.t.Frames {
			if f.Method == "sun.net.httpserver.ServerImpl$Exchange.run" && !c.role.Kind.Serving() {
				t.Errorf("%s: %q runs an exchange but is %s", c.file, c.t.Name, c.role)
			}
			if f.Method == "io.netty.channel.nio.NioEventLoop.run" && c.role.Kind != threadrole.EventLoop && c.role.Kind != threadrole.Acceptor {
				t.Errorf("%s: %q runs a Netty loop but is %s", c.file, c.t.Name, c.role)
			}
		}
		if len(c.t.Frames) > 0 && c.role.Kind == threadrole.Unknown {
			t.Errorf("%s: %q has frames but is unknown", c.file, c.t.Name)
		}
	}
	var ks []string
	for k, n := range byKind {
		ks = append(ks, string(k)+"="+itoa(n))
	}
	sort.Strings(ks)
	t.Logf("%d threads: %s; decided by name %d, by stack %d, by neither %d", len(threads), strings.Join(ks, " "), by["name"], by["stack"], by[""])
	for _, k := range []threadrole.Kind{threadrole.RequestWorker, threadrole.EventLoop, threadrole.Acceptor, threadrole.JIT, threadrole.GC, threadrole.VM, threadrole.Timer, threadrole.DBPool, threadrole.Logging, threadrole.ForkJoin, threadrole.VirtualCarrier} {
		if byKind[k] == 0 {
			t.Errorf("no %s thread in the corpus", k)
		}
	}
}

func itoa(n int) string {
	s := ""
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
