package native

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/testchild"
)

// The C programs: each pathology, and its fix with -DFIXED.
var programs = map[string]string{
	// A spin wait in the manner of InnoDB's ut_delay: pause in a loop; the
	// fix sleeps instead.
	"spin.c": `#include <unistd.h>
volatile unsigned long sink;
__attribute__((noinline)) void ut_delay_like(unsigned n) {
#ifdef FIXED
  usleep(50);
#else
  for (unsigned i = 0; i < n; i++) __builtin_ia32_pause();
#endif
}
__attribute__((noinline)) void work(void) { for (int i = 0; i < 20000; i++) sink += i * 7; }
int main(void) { for (;;) { ut_delay_like(20000); work(); } }
`,
	// CRC32C of a buffer, table-driven; the fix uses the SSE4.2 crc32 instruction.
	"crc.c": `#include <stdint.h>
#include <stddef.h>
static uint32_t table[256];
static unsigned char buf[1 << 16];
volatile uint32_t sink;
__attribute__((noinline)) uint32_t crc32_buf(const unsigned char *p, size_t n) {
  uint32_t c = ~0u;
#ifdef FIXED
  uint64_t c64 = c;
  for (size_t i = 0; i + 8 <= n; i += 8) c64 = __builtin_ia32_crc32di(c64, *(const uint64_t *)(p + i));
  c = (uint32_t)c64;
#else
  for (size_t i = 0; i < n; i++) c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
#endif
  return ~c;
}
int main(void) {
  for (uint32_t i = 0; i < 256; i++) { uint32_t c = i; for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1; table[i] = c; }
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)i;
  for (;;) sink += crc32_buf(buf, sizeof buf);
}
`,
	// Sixteen threads woken together on one condition variable and mutex
	// (a thundering herd: futex wait/wake in the kernel); the fix gives each
	// thread its own counter and no lock.
	"futex.c": `#include <pthread.h>
#define T 16
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile unsigned long gen, count[T * 16];
static void *run(void *a) {
  long id = (long)a;
#ifdef FIXED
  for (;;) count[id * 16]++;
#else
  unsigned long seen = 0;
  for (;;) {
    pthread_mutex_lock(&mu);
    while (gen == seen) pthread_cond_wait(&cv, &mu);
    seen = gen;
    count[id * 16]++;
    pthread_mutex_unlock(&mu);
  }
#endif
  return 0;
}
int main(void) {
  pthread_t t[T];
  for (long i = 0; i < T; i++) pthread_create(&t[i], 0, run, (void *)i);
  for (;;) { pthread_mutex_lock(&mu); gen++; pthread_cond_broadcast(&cv); pthread_mutex_unlock(&mu); }
}
`,
}

// startC builds a program (fixed or not) and runs it until the test ends.
func startC(t *testing.T, name string, fixed bool) int {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no cc")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, name)
	if err := os.WriteFile(src, []byte(programs[name]), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, strings.TrimSuffix(name, ".c"))
	args := []string{"-O1", "-fno-omit-frame-pointer", "-msse4.2", "-pthread", "-o", bin, src}
	if fixed {
		args = append([]string{"-DFIXED"}, args...)
	}
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	time.Sleep(200 * time.Millisecond)
	return cmd.Process.Pid
}

// sampleOrSkip samples pid, skipping where the host refuses (saying why).
func sampleOrSkip(t *testing.T, pid int, d time.Duration) *Recording {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the C pathologies are x86-64 programs")
	}
	rec, err := Sample(context.Background(), d, Options{PID: pid, Hz: 499})
	var u *Unavailable
	if errors.As(err, &u) {
		t.Skipf("cannot sample here: %s", u.Message("en"))
	}
	if err != nil {
		t.Fatal(err)
	}
	if rec.Samples < 20 {
		t.Fatalf("only %d samples of pid %d", rec.Samples, pid)
	}
	return rec
}

func ids(rec *Recording) []string {
	var out []string
	for _, f := range Catalogue(rec, ReadCPU()) {
		out = append(out, f.ID)
	}
	return out
}

func has(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func TestCataloguePathologicalVersusFixed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and samples C programs")
	}
	if ok, _ := ReadCPU().HasCRC32(); !ok {
		t.Skip("this CPU has no sse4_2")
	}
	for _, c := range []struct{ prog, id, hot string }{
		{"spin.c", "native.spin-wait", "ut_delay_like"},
		{"crc.c", "native.crc32-software", "crc32_buf"},
		{"futex.c", "native.futex-storm", "futex_"},
	} {
		for _, fixed := range []bool{false, true} {
			rec := sampleOrSkip(t, startC(t, c.prog, fixed), 1500*time.Millisecond)
			got := ids(rec)
			top := ""
			if len(rec.Funcs) > 0 {
				top = rec.Funcs[0].Name
			}
			t.Logf("%s fixed=%v: %d samples, top %s, findings %v", c.prog, fixed, rec.Samples, top, got)
			if !fixed && !has(got, c.id) {
				t.Errorf("%s: %s not found; hottest %v", c.prog, c.id, rec.Funcs[:min(5, len(rec.Funcs))])
			}
			if fixed && has(got, c.id) {
				t.Errorf("%s fixed: %s found anyway", c.prog, c.id)
			}
			// The stacks read end to end: the program's name at the root,
			// and the pathological function named.
			if !fixed {
				named := false
				for _, s := range rec.Profile.Samples {
					if strings.Contains(strings.Join(s.Stack, ";"), c.hot) {
						named = true
						break
					}
				}
				if !named {
					t.Errorf("%s: no stack names %s", c.prog, c.hot)
				}
			}
		}
	}
}

// Kernel frames come with the futex storm: named from kallsyms, marked _[k].
func TestKernelFramesNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("samples")
	}
	rec := sampleOrSkip(t, startC(t, "futex.c", false), time.Second)
	k := 0
	for _, f := range rec.Funcs {
		if f.Kind == "kernel" && f.Name != "[unknown]" {
			k++
		}
	}
	if k == 0 {
		t.Errorf("no kernel function named")
	}
	found := false
	for _, s := range rec.Profile.Samples {
		if s.Stack[0] == "futex" && strings.HasSuffix(s.Stack[len(s.Stack)-1], "_[k]") {
			found = true
		}
	}
	if !found {
		t.Errorf("no stack from the program down into the kernel")
	}
}

const javaBurner = `public class Burn {
  static double burn(int n) { double x = 0; for (int i = 1; i < n; i++) x += Math.sqrt(i) / i; return x; }
  public static void main(String[] a) { double s = 0; System.out.println("ready"); while (true) { s += burn(100000); if (s < 0) break; } } }`

// A JVM's JIT frames are named through its perf map (Compiler.perfmap).
func TestJavaFramesFromPerfMap(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil || testing.Short() {
		t.Skip("no java, or -short")
	}
	src := filepath.Join(t.TempDir(), "Burn.java")
	if err := os.WriteFile(src, []byte(javaBurner), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, src)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer testchild.ReapJVM(cmd)
	b := make([]byte, 6)
	_, _ = out.Read(b)
	time.Sleep(time.Second) // burn gets compiled
	rec := sampleOrSkip(t, cmd.Process.Pid, 1500*time.Millisecond)
	t.Logf("JIT frames %d, named %.0f%%; notes %v", rec.JITFrames, 100*rec.JITShare(), rec.Notes)
	if rec.JITFrames == 0 || rec.JITShare() < 0.9 {
		t.Errorf("JIT frames %d, named %.0f%%, want 90%%+", rec.JITFrames, 100*rec.JITShare())
	}
	named := false
	for _, f := range rec.Funcs {
		if f.Kind == "java" && strings.Contains(f.Name, "Burn") && strings.Contains(f.Name, "burn") {
			named = true
		}
	}
	if !named {
		t.Errorf("Burn.burn not among the Java frames: %v", rec.Funcs[:min(8, len(rec.Funcs))])
	}
	if _, err := os.Stat("/tmp/perf-" + strconv.Itoa(cmd.Process.Pid) + ".map"); err == nil {
		t.Errorf("the perf map was left in the JVM's /tmp")
	}
}
