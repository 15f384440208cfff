package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/input"
	"github.com/tuneloop/tuneloop/internal/report"
)

const (
	dumpDir = "../jvm/threaddump/testdata"
	gcDir   = "../jvm/gclog/testdata/live"
	confDir = "../jvm/logconf/testdata"
)

func opts() Options {
	return Options{Lang: finding.EN, Output: report.Text, Profile: "java-web", Limits: input.DefaultLimits(),
		Now: func() time.Time { return time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC) }}
}

// Every kind of input in one call: each is read with its format, analysed
// into its own part of the document, and every format renders it.
func TestFilesEveryKindOneDocument(t *testing.T) {
	args := []string{
		filepath.Join(dumpDir, "jdk17_deadlock_jcmd.txt"),
		filepath.Join(gcDir, "jdk17-g1.log"),
		filepath.Join(confDir, "logback-spring.xml"),
		"../stacks/testdata/asprof-pool.collapsed",
	}
	r, err := Files(context.Background(), args, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Read) != 4 || r.Given != 4 || len(r.Unreadable) != 0 {
		t.Fatalf("read %+v, given %d, unreadable %+v", r.Read, r.Given, r.Unreadable)
	}
	formats := map[string]string{}
	for _, in := range r.Read {
		formats[filepath.Base(in.Name)] = in.Format
	}
	if formats["jdk17-g1.log"] != "gclog" || formats["logback-spring.xml"] != "logconf" || formats["asprof-pool.collapsed"] != "collapsed" {
		t.Errorf("formats: %v", formats)
	}
	if len(r.ThreadDumps) != 1 || r.GC == nil || len(r.LogConfigs) != 1 || len(r.Profiles) != 1 {
		t.Fatalf("parts: dumps %d, gc %v, configs %d, profiles %d", len(r.ThreadDumps), r.GC != nil, len(r.LogConfigs), len(r.Profiles))
	}
	// The deadlock in the dump is a finding, and the findings are sorted worst first.
	dead := false
	for i, f := range r.Findings {
		if strings.Contains(strings.ToLower(f.ID), "deadlock") {
			dead = true
		}
		if i > 0 && r.Findings[i-1].Severity < f.Severity {
			t.Errorf("findings not worst first at %d: %s after %s", i, f.Severity, r.Findings[i-1].Severity)
		}
	}
	if !dead {
		t.Errorf("no deadlock finding from %s", args[0])
	}

	var text, md, js bytes.Buffer
	for f, b := range map[report.Format]*bytes.Buffer{report.Text: &text, report.Markdown: &md, report.JSON: &js} {
		if err := Write(b, r, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	for _, h := range []string{"## Thread dumps", "## GC log", "## Logging configuration", "## Profile", "## Findings ("} {
		if !strings.Contains(md.String(), h) {
			t.Errorf("markdown lacks %q", h)
		}
	}
	// The Markdown fences hold the same section text the text format prints.
	if !strings.Contains(md.String(), strings.SplitN(text.String(), "\n", 2)[0]) {
		t.Errorf("markdown lacks the text's first line %q", strings.SplitN(text.String(), "\n", 2)[0])
	}
	var back struct {
		Schema   string            `json:"schema"`
		Findings []finding.Finding `json:"findings"`
		Read     []InputRead       `json:"read"`
		Given    *int              `json:"Given"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Schema != "tuneloop.analyze/v1" || len(back.Findings) != len(r.Findings) || len(back.Read) != 4 || back.Given != nil {
		t.Errorf("json: schema %q, %d findings, %d read, Given leaked %v", back.Schema, len(back.Findings), len(back.Read), back.Given)
	}
	var page bytes.Buffer
	if err := Write(&page, r, report.HTML); err != nil || !bytes.Contains(page.Bytes(), []byte("<html")) {
		t.Errorf("html: %v, %d bytes", err, page.Len())
	}
}

// A bad input is refused on its own, named with what it is; the others
// are still analysed.
func TestFilesRefusesEachInputOnItsOwn(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dumpDir, "jdk17_deadlock_jcmd.txt")
	r, err := Files(context.Background(), []string{empty, dir, good}, opts())
	if err != nil {
		t.Fatal(err)
	}
	if r.Given != 3 || len(r.Unreadable) != 2 || len(r.ThreadDumps) != 1 {
		t.Fatalf("given %d, unreadable %+v, dumps %d", r.Given, r.Unreadable, len(r.ThreadDumps))
	}
	if !strings.Contains(r.Unreadable[0].Message, "empty") || !strings.Contains(r.Unreadable[1].Message, "not a run folder") {
		t.Errorf("refusals do not say why: %+v", r.Unreadable)
	}
	var b bytes.Buffer
	if err := Write(&b, r, report.Text); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "Not read: "+empty+": empty\n") {
		t.Errorf("text does not open with the refusals:\n%.300s", b.String())
	}
}

// What the options make impossible is a UsageError: stdin twice, -o html
// with nothing to draw, --collapsed without a profile, a bad --cmdline.
func TestFilesUsageErrors(t *testing.T) {
	conf := filepath.Join(confDir, "logback-spring.xml")
	o := opts()
	o.Stdin = strings.NewReader("")
	_, err := Files(context.Background(), []string{"-", "-"}, o)
	var u *UsageError
	if !errors.As(err, &u) {
		t.Errorf("stdin twice: %v", err)
	}
	o = opts()
	o.Collapsed = filepath.Join(t.TempDir(), "p.collapsed")
	if _, err := Files(context.Background(), []string{conf}, o); !errors.As(err, &u) {
		t.Errorf("--collapsed without a profile: %v", err)
	}
	o = opts()
	o.Cmdline = "ls -l"
	if _, err := Files(context.Background(), nil, o); !errors.As(err, &u) {
		t.Errorf("--cmdline without java: %v", err)
	}
	r, err := Files(context.Background(), []string{conf}, opts())
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(&bytes.Buffer{}, r, report.HTML); !errors.As(err, &u) || r.HasPage() {
		t.Errorf("-o html of a logging config: %v (page %v)", err, r.HasPage())
	}
}

// --max-input cuts an input where the limit falls: what came before is
// analysed and the input is said to be read in part, not refused.
func TestFilesCutAtLimitReadsInPart(t *testing.T) {
	o := opts()
	o.Limits.MaxBytes = 20 << 10
	gc := filepath.Join(gcDir, "jdk17-g1.log")
	if st, err := os.Stat(gc); err != nil || st.Size() <= o.Limits.MaxBytes {
		t.Fatalf("%s must be larger than the limit: %v", gc, err)
	}
	r, err := Files(context.Background(), []string{gc}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ReadInPart) != 1 || len(r.Unreadable) != 0 || r.GC == nil || r.GC.Summary.Pauses == 0 {
		t.Fatalf("read in part %+v, unreadable %+v, gc %v", r.ReadInPart, r.Unreadable, r.GC != nil)
	}
}

// A JFR recording becomes its profiles, a flame page each with -o html,
// named apart by kind.
func TestFilesJFRPagesByKind(t *testing.T) {
	dir := t.TempDir()
	o := opts()
	o.Output, o.Out = report.HTML, filepath.Join(dir, "p.html")
	r, err := Files(context.Background(), []string{"../cli/testdata/profiles/mixed.jfr"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Profiles) < 2 || len(r.ProfilePages) != len(r.Profiles) {
		t.Fatalf("%d profiles, pages %v", len(r.Profiles), r.ProfilePages)
	}
	for i, p := range r.ProfilePages {
		want := filepath.Join(dir, "p."+r.Profiles[i].Kind+".html")
		if p != want {
			t.Errorf("page %d: %s, want %s", i, p, want)
		}
		if b, err := os.ReadFile(p); err != nil || !bytes.Contains(b, []byte("<html")) {
			t.Errorf("page %s: %v", p, err)
		}
	}
}
