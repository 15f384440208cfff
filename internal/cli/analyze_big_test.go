package cli

import (
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// bigSparse makes a sparse file of size bytes starting with head.
func bigSparse(t *testing.T, name string, head []byte, size int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, head, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, size); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	return p
}

// A 2 GB file with a JFR magic, or 2 GB of zeros given as --format jfr, is
// refused on its header (it was read whole: 4.6 GB RSS, 11-16 s), named,
// and the exit is 1.
func TestAnalyzeRefusesBigBadJFR(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		head         []byte
		want         string
	}{
		{"magic.jfr", "", []byte("FLR\x00\x00\x02\x00\x00"), "chunk size 0 is smaller than its header"},
		{"zeros.bin", "jfr", nil, "not a JFR recording"},
	} {
		p := bigSparse(t, tc.name, tc.head, 2<<30)
		env, out, errb := testEnv()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		err := RunAnalyze(context.Background(), env, []string{p}, &AnalyzeOptions{Output: "text", Format: tc.format, Profile: "java-web"})
		runtime.ReadMemStats(&m1)
		// What was allocated (all goroutines of this test binary): the file
		// read whole is 2 GB and more.
		if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 256<<20 {
			t.Errorf("%s: %d MB allocated to refuse a bad header", tc.name, alloc>>20)
		}
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitFailure {
			t.Fatalf("%s: err %v, want exit 1", tc.name, err)
		}
		if s := out.String() + errb.String(); !strings.Contains(s, tc.name) || !strings.Contains(s, tc.want) {
			t.Errorf("%s: output does not name the file and %q:\n%s", tc.name, tc.want, s)
		}
	}
}

// Random bytes given as --format collapsed are refused (exit 1), not a
// profile of 9 events with exit 0.
func TestAnalyzeCollapsedRefusesRandomBytes(t *testing.T) {
	buf := make([]byte, 1<<20)
	rand.New(rand.NewSource(7)).Read(buf)
	p := filepath.Join(t.TempDir(), "random.bin")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	env, out, errb := testEnv()
	err := RunAnalyze(context.Background(), env, []string{p}, &AnalyzeOptions{Output: "text", Format: "collapsed", Profile: "java-web"})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure {
		t.Fatalf("err %v, want exit 1\n%s", err, out.String())
	}
	if s := out.String() + errb.String(); !strings.Contains(s, "random.bin") || !strings.Contains(s, "no collapsed stack") {
		t.Errorf("output:\n%s", s)
	}
}
