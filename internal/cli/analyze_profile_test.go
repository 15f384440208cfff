package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

var (
	mixedJFR   = filepath.Join("testdata", "profiles", "mixed.jfr")
	asprofPool = filepath.Join("..", "stacks", "testdata", "asprof-pool.collapsed")
	beforeJFR  = filepath.Join("testdata", "profiles", "before.jfr")
	afterJFR   = filepath.Join("testdata", "profiles", "after.jfr")
)

// `analyze mixed.jfr`: one section per kind the recording holds, each
// naming its culprit; the derived wall view is not listed unasked.
func TestAnalyzeJFREveryKind(t *testing.T) {
	out, err := runAnalyze(t, []string{mixedJFR}, AnalyzeOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"mixed.jfr · CPU profile · recorded 3.", "Mixed.burn",
		"mixed.jfr · allocation profile", "Mixed.allocate", "byte[]", // JFR stores "[B"
		"mixed.jfr · lock profile (time blocked)", "[lock] java.lang.Object", "Mixed.holdGate",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%.3000s", want, out)
		}
	}
	if strings.Contains(out, "wall-clock profile") {
		t.Error("a wall profile listed though the recording has no wall-clock samples")
	}
	// --profile lock: that section only; JSON carries the page.
	res := analyzeJSON(t, []string{mixedJFR}, AnalyzeOptions{Profile: "lock"})
	if len(res.Profiles) != 1 || res.Profiles[0].Kind != "lock" || len(res.Profiles[0].BySelf) == 0 ||
		res.Profiles[0].BySelf[0].Frame != "[lock] java.lang.Object" || res.Profiles[0].Unit != "nanoseconds" {
		t.Fatalf("json profiles %+v", res.Profiles)
	}
	if len(res.Read) != 1 || res.Read[0].Format != "jfr" {
		t.Errorf("read %+v", res.Read)
	}
	// --profile wall, built from JFR's own events, says what it lacks:
	// threads in native code (socket reads) are not in it.
	out, err = runAnalyze(t, []string{mixedJFR}, AnalyzeOptions{Profile: "wall"})
	if err != nil || !strings.Contains(out, "threads in native code") {
		t.Errorf("wall view without its native-code note: %v\n%.2000s", err, out)
	}
}

// -o html --out F writes jvm --profile's page; --collapsed and --pprof
// write the stacks, each file named by kind when there are several.
func TestAnalyzeJFRFiles(t *testing.T) {
	dir := t.TempDir()
	env, _, stderr := testEnv()
	o := &AnalyzeOptions{Output: "html", Out: filepath.Join(dir, "p.html"), Collapsed: filepath.Join(dir, "p.collapsed"),
		Pprof: filepath.Join(dir, "p.pb.gz"), Profile: "java-web", Now: fixedNow}
	if err := RunAnalyze(context.Background(), env, []string{mixedJFR}, o); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"cpu", "alloc", "lock"} {
		page, err := os.ReadFile(filepath.Join(dir, "p."+k+".html"))
		if err != nil {
			t.Fatalf("%v (stderr %s)", err, stderr)
		}
		if !bytes.Contains(page, []byte(`id="flame"`)) || !bytes.Contains(page, []byte("Content-Security-Policy")) {
			t.Errorf("%s page has no flame graph or no CSP", k)
		}
		if !strings.Contains(stderr.String(), "p."+k+".html") {
			t.Errorf("stderr does not name the %s page: %s", k, stderr)
		}
		col, err := os.ReadFile(filepath.Join(dir, "p."+k+".collapsed"))
		if err != nil || !bytes.Contains(col, []byte("Mixed.")) {
			t.Errorf("%s collapsed: %v", k, err)
		}
		f, err := os.Open(filepath.Join(dir, "p."+k+".pb.gz"))
		if err != nil {
			t.Fatal(err)
		}
		pp, err := profile.Parse(f)
		f.Close()
		if err != nil || len(pp.Sample) == 0 {
			t.Errorf("%s pprof: %v", k, err)
		}
	}
	lockPage, _ := os.ReadFile(filepath.Join(dir, "p.lock.html"))
	if !bytes.Contains(lockPage, []byte("java.lang.Object")) {
		t.Error("the lock page does not name the lock class")
	}
	// One profile: the names as given.
	o.Profile, o.Out, o.Collapsed, o.Pprof = "cpu", filepath.Join(dir, "cpu.html"), filepath.Join(dir, "cpu.txt"), ""
	if err := RunAnalyze(context.Background(), env, []string{mixedJFR}, o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cpu.html")); err != nil {
		t.Error(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cpu.txt")); !bytes.Contains(b, []byte("Mixed.burn")) {
		t.Error("cpu.txt lacks Mixed.burn")
	}
}

// async-profiler's collapsed output is recognised by content (also
// gzipped, whatever its name) and read with its thread frames.
func TestAnalyzeCollapsed(t *testing.T) {
	b, err := os.ReadFile(asprofPool)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b)
	zw.Close()
	p := filepath.Join(t.TempDir(), "whatever.out")
	os.WriteFile(p, gz.Bytes(), 0o644)
	out, err := runAnalyze(t, []string{p}, AnalyzeOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"CPU profile", "221 events", "total 352 samples", "updateBytesCRC32", "[formatter tid=32284]", "java.lang.String.format"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%.2000s", want, out)
		}
	}
	if strings.Contains(out, "recorded 0s") {
		t.Errorf("collapsed stacks have no duration, yet one is printed:\n%.500s", out)
	}
	res := analyzeJSON(t, []string{p}, AnalyzeOptions{})
	if len(res.Read) != 1 || res.Read[0].Format != "collapsed" || res.Read[0].Encoding != "gzip" {
		t.Errorf("read %+v", res.Read)
	}
}

// A cut or corrupt recording is refused by name; the other inputs stand.
func TestAnalyzeBadRecording(t *testing.T) {
	b, _ := os.ReadFile(mixedJFR)
	p := filepath.Join(t.TempDir(), "cut.jfr")
	os.WriteFile(p, b[:200], 0o644)
	out, err := runAnalyze(t, []string{p, asprofPool}, AnalyzeOptions{})
	if err == nil || !strings.Contains(out, "Not read: "+p+": a JFR recording that cannot be read") || !strings.Contains(out, "updateBytesCRC32") {
		t.Errorf("err %v\n%.1500s", err, out)
	}
	if _, err := runAnalyze(t, []string{asprofPool}, AnalyzeOptions{Pprof: filepath.Join(t.TempDir(), "x")}); err != nil {
		t.Errorf("--pprof of collapsed input: %v", err)
	}
	dumps := filepath.Join(dumpsDir, "jdk17_deadlock_jcmd.txt")
	if _, err := runAnalyze(t, []string{dumps}, AnalyzeOptions{Collapsed: "x"}); err == nil {
		t.Error("--collapsed without a profile input accepted")
	}
}

// Frame names come from the target: escapes and markup reach neither the
// terminal nor the page as such.
func TestAnalyzeCollapsedHostile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "evil.collapsed")
	os.WriteFile(p, []byte("[evil\x1b]0;pwned\x07 tid=1];main;<img src=x onerror=alert(1)>\x1b[2J 9\nmain;ok 1\n"), 0o644)
	out, err := runAnalyze(t, []string{p}, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "<img src=x onerror=alert(1)>") {
		t.Errorf("text output:\n%q", out)
	}
	page := filepath.Join(dir, "p.html")
	if _, err := runAnalyze(t, []string{p}, AnalyzeOptions{Output: "html", Out: page}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(page)
	if bytes.Contains(b, []byte("<img src=x")) || bytes.ContainsAny(b, "\x1b\x07") || !bytes.Contains(b, []byte("&lt;img src=x")) {
		t.Error("the page carries the target's markup or escapes")
	}
}

// GC logs and a recording with -o html: the GC page at --out, the
// profile's page beside it, named by kind.
func TestAnalyzeHTMLGCAndProfile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "page.html")
	env, _, stderr := testEnv()
	o := &AnalyzeOptions{Output: "html", Out: out, Profile: "lock", Now: fixedNow}
	if err := RunAnalyze(context.Background(), env, []string{filepath.Join(gcDir, "jdk17-g1.log"), mixedJFR}, o); err != nil {
		t.Fatal(err)
	}
	gc, err1 := os.ReadFile(out)
	lock, err2 := os.ReadFile(filepath.Join(dir, "page.lock.html"))
	if err1 != nil || err2 != nil || !bytes.Contains(lock, []byte("java.lang.Object")) || bytes.Contains(gc, []byte("Mixed.holdGate")) {
		t.Errorf("%v %v (stderr %s)", err1, err2, stderr)
	}
}
