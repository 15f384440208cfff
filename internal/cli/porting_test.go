package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/porting"
)

// Fixtures: jars built here around the real ELF shared objects in
// internal/porting/testdata/elf (see demo.c there for how they were built).

func portingELF(t *testing.T, arch string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "porting", "testdata", "elf", "libdemo-"+arch+".so"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jarOf(t *testing.T, files map[string][]byte, stored bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range files {
		m := zip.Deflate
		if stored {
			m = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: m})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pom(g, a, v string) []byte {
	return []byte("groupId=" + g + "\nartifactId=" + a + "\nversion=" + v + "\n")
}

// portingFixtures writes three PATHs: a fat jar with a blocker, a jar
// needing only an upgrade, and a clean one.
func portingFixtures(t *testing.T) (blocker, upgrade, clean string) {
	dir := t.TempDir()
	x86, arm := portingELF(t, "x86_64"), portingELF(t, "aarch64")
	vendor := jarOf(t, map[string][]byte{
		"META-INF/maven/com.vendor/engine/pom.properties": pom("com.vendor", "engine", "3.1"),
		"native/linux-x86-64/libengine.so":                x86,
	}, false)
	both := jarOf(t, map[string][]byte{
		"META-INF/maven/com.acme/codec/pom.properties": pom("com.acme", "codec", "1.0"),
		"native/linux-x86-64/libcodec.so":              x86,
		"native/linux-aarch64/libcodec.so":             arm,
	}, false)
	fat := jarOf(t, map[string][]byte{
		"BOOT-INF/lib/engine-3.1.jar": vendor,
		"BOOT-INF/lib/codec-1.0.jar":  both,
	}, true)
	blocker = filepath.Join(dir, "app.jar")
	os.WriteFile(blocker, fat, 0o644)
	rocks := jarOf(t, map[string][]byte{
		"META-INF/maven/org.rocksdb/rocksdbjni/pom.properties": pom("org.rocksdb", "rocksdbjni", "5.7.3"),
		"librocksdbjni-linux64.so":                             x86,
	}, false)
	upgrade = filepath.Join(dir, "rocksdbjni-5.7.3.jar")
	os.WriteFile(upgrade, rocks, 0o644)
	clean = filepath.Join(dir, "codec-1.0.jar")
	os.WriteFile(clean, both, 0o644)
	return blocker, upgrade, clean
}

func runPorting(t *testing.T, o PortingOptions) (string, string, error) {
	t.Helper()
	env, out, errb := testEnv()
	o.Now = fixedNow
	if o.Output == "" {
		o.Output = "text"
	}
	err := RunPorting(context.Background(), env, &o)
	return out.String(), errb.String(), err
}

func exitCode(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if err != nil {
		return ExitFailure
	}
	return ExitOK
}

func TestPortingExitCodes(t *testing.T) {
	blocker, upgrade, clean := portingFixtures(t)
	for _, tc := range []struct {
		paths  []string
		failOn string
		want   int
	}{
		{[]string{blocker}, "", ExitPortingBlockers}, // default --fail-on blocker
		{[]string{blocker}, "blocker", ExitPortingBlockers},
		{[]string{blocker}, "upgrade", ExitPortingBlockers},
		{[]string{blocker}, "none", ExitOK},
		{[]string{upgrade}, "blocker", ExitOK},
		{[]string{upgrade}, "upgrade", ExitPortingUpgrades},
		{[]string{clean}, "upgrade", ExitOK},
		{[]string{clean, upgrade, blocker}, "upgrade", ExitPortingBlockers},
		{[]string{clean, filepath.Join(t.TempDir(), "missing.jar")}, "none", ExitFailure},
	} {
		_, _, err := runPorting(t, PortingOptions{Paths: tc.paths, FailOn: tc.failOn})
		if got := exitCode(err); got != tc.want {
			t.Errorf("%v --fail-on %q: exit %d (%v), want %d", tc.paths, tc.failOn, got, err, tc.want)
		}
	}
}

func TestPortingText(t *testing.T) {
	blocker, _, _ := portingFixtures(t)
	out, _, _ := runPorting(t, PortingOptions{Paths: []string{blocker}, Lang: "en"})
	for _, want := range []string{
		"target linux/arm64",
		"[BLOCKER] com.vendor:engine:3.1 ships native code with no linux/arm64 build",
		"app.jar!/BOOT-INF/lib/engine-3.1.jar!/native/linux-x86-64/libengine.so",
		"ELF64 LSB DYN x86_64 (EM_X86_64), needs GLIBC_2.25",
		"[PASS] com.acme:codec:1.0: native code for linux/arm64 found",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	zh, _, _ := runPorting(t, PortingOptions{Paths: []string{blocker}, Lang: "zh"})
	if !strings.Contains(zh, "[阻断]") || !strings.Contains(zh, "修复") {
		t.Errorf("Chinese output:\n%s", zh)
	}
	md, _, _ := runPorting(t, PortingOptions{Paths: []string{blocker}, Output: "markdown"})
	if !strings.Contains(md, "| blocker | `com.vendor:engine:3.1` |") {
		t.Errorf("markdown:\n%s", md)
	}
}

func TestPortingJSON(t *testing.T) {
	blocker, upgrade, _ := portingFixtures(t)
	out, _, _ := runPorting(t, PortingOptions{Paths: []string{blocker, upgrade}, Output: "json", FailOn: "none"})
	var doc porting.Report
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Schema != porting.SchemaID || doc.Target != "linux/arm64" || len(doc.Paths) != 2 {
		t.Fatalf("doc: %+v", doc)
	}
	r := doc.Paths[1].Results[0]
	if r.Verdict != porting.Upgrade || r.Suggest != "6.4.6" || r.Version != "5.7.3" || r.Finding.ID != "porting.library" ||
		r.Finding.Fix.Note.ZH == "" {
		t.Errorf("rocksdb result: %+v", r)
	}
}

// The JUnit schema Jenkins reads, enough to check the document.
type jTestsuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestPortingJUnit(t *testing.T) {
	blocker, upgrade, clean := portingFixtures(t)
	missing := filepath.Join(t.TempDir(), "gone.jar")
	outFile := filepath.Join(t.TempDir(), "reports", "porting.xml")
	_, stderr, err := runPorting(t, PortingOptions{Paths: []string{blocker, upgrade, clean, missing}, Output: "junit", OutFile: outFile, FailOn: "upgrade"})
	if exitCode(err) != ExitFailure || !strings.Contains(stderr, outFile) {
		t.Errorf("exit %d (%v), stderr %q", exitCode(err), err, stderr)
	}
	b, rerr := os.ReadFile(outFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	var doc jTestsuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, b)
	}
	if len(doc.Suites) != 4 {
		t.Fatalf("want one testsuite per PATH, got %d", len(doc.Suites))
	}
	if doc.Suites[0].Name != blocker || doc.Suites[0].Failures != 1 || doc.Suites[0].Tests != 2 {
		t.Errorf("suite 0: %+v", doc.Suites[0])
	}
	f := doc.Suites[0].Cases[0].Failure
	if f == nil || f.Type != "blocker" || !strings.Contains(f.Body, "libengine.so") || doc.Suites[0].Cases[0].Classname != "porting.native" {
		t.Errorf("blocker case: %+v", doc.Suites[0].Cases[0])
	}
	if c := doc.Suites[1].Cases[0]; c.Failure == nil || c.Failure.Type != "upgrade" {
		t.Errorf("upgrade case: %+v", c)
	}
	if c := doc.Suites[2].Cases[0]; c.Failure != nil || !strings.HasPrefix(c.SystemOut, "pass") {
		t.Errorf("pass case: %+v", c)
	}
	if c := doc.Suites[3].Cases[0]; c.Error == nil {
		t.Errorf("missing PATH should be an <error>: %+v", c)
	}
	sum := 0
	for _, s := range doc.Suites {
		sum += s.Tests
	}
	if doc.Tests != sum || doc.Failures != 2 || doc.Errors != 1 {
		t.Errorf("totals: tests %d (sum %d) failures %d errors %d", doc.Tests, sum, doc.Failures, doc.Errors)
	}
}

func TestPortingUsageErrors(t *testing.T) {
	_, _, clean := portingFixtures(t)
	for _, o := range []PortingOptions{
		{},
		{Paths: []string{clean}, Output: "html"},
		{Paths: []string{clean}, Target: "windows/arm64"},
		{Paths: []string{clean}, FailOn: "warning"},
		{Paths: []string{clean}, Lang: "fr"},
		{Paths: []string{clean}, Glibc: "two"},
	} {
		if _, _, err := runPorting(t, o); exitCode(err) != ExitUsage {
			t.Errorf("%+v: exit %d (%v), want usage", o, exitCode(err), err)
		}
	}
}

func TestPortingCommandFlags(t *testing.T) {
	blocker, _, _ := portingFixtures(t)
	env, out, _ := testEnv()
	cmd := newPortingCmd(env)
	cmd.SetArgs([]string{blocker, "--target", "linux/arm64", "--output", "json", "--fail-on", "upgrade", "--max-depth", "3"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	if exitCode(err) != ExitPortingBlockers {
		t.Errorf("exit %d (%v)", exitCode(err), err)
	}
	if !strings.Contains(out.String(), `"schema": "tuneloop.porting/v1"`) {
		t.Errorf("output: %s", out.String())
	}
	if help := cmd.Long; !strings.Contains(help, "4  upgrades suggested") || !strings.Contains(help, "5  blockers found") {
		t.Error("help must document exit codes 4 and 5")
	}
}
