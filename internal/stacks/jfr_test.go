package stacks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A real recording from the installed JDK: a busy method must be in the
// sampled stacks, root first.
func TestJFRExecutionSamplesFromRealJVM(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "Spin.java")
	code := `public class Spin {
  static double burn(int n) { double x = 0; for (int i = 1; i < n; i++) x += Math.sqrt(i) / i; return x; }
  public static void main(String[] a) throws Exception {
    long end = System.currentTimeMillis() + 2500; double s = 0;
    while (System.currentTimeMillis() < end) s += burn(100000);
    System.out.println(s > 0);
  } }`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	jfr := filepath.Join(dir, "spin.jfr")
	out, err := exec.Command(java, "-XX:StartFlightRecording=settings=profile,filename="+jfr, src).CombinedOutput()
	if err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	buf, err := os.ReadFile(jfr)
	if err != nil {
		t.Fatal(err)
	}
	burn := 0
	n, err := JFRExecutionSamples(buf, func(stack []string) {
		if len(stack) > 0 && strings.HasSuffix(stack[0], "main") && strings.Contains(strings.Join(stack, ";"), "Spin.burn") {
			burn++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 || burn < n/2 {
		t.Errorf("%d samples, %d in Spin.burn under main; want most of at least 20", n, burn)
	}
}

func TestJFRRejectsOtherData(t *testing.T) {
	if _, err := JFRExecutionSamples([]byte("Full thread dump"), func([]string) {}); err != ErrNotJFR {
		t.Errorf("got %v", err)
	}
}

// Corrupt recordings give an error, never a panic.
func FuzzJFRExecutionSamples(f *testing.F) {
	f.Add([]byte("FLR\x00\x00\x02\x00\x01"))
	f.Add([]byte("FLR\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = JFRExecutionSamples(b, func([]string) {})
	})
}
