package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/analysis"
	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/experiment"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/porting"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// TestOutputRefusedByOneHelper: every command refuses an unknown --output
// with usage (exit 2) and the one message, in English and Chinese, whose
// list of formats is the one its writer declares.
func TestOutputRefusedByOneHelper(t *testing.T) {
	dir := t.TempDir()
	jar := filepath.Join(dir, "app.jar")
	if err := os.WriteFile(jar, []byte("PK\x05\x06"+strings.Repeat("\x00", 18)), 0o644); err != nil {
		t.Fatal(err)
	}
	gc := "../jvm/gclog/testdata/live/jdk17-g1-12s.log"
	cases := []struct {
		args []string
		fs   report.Formats
		bad  string // "yaml" when empty
	}{
		{[]string{"check"}, report.CheckFormats(), ""},
		{[]string{"porting", jar}, porting.Formats(), ""},
		{[]string{"compare", demoBefore, demoAfter}, compare.Formats(), ""},
		{[]string{"compare", "--steps", demoBefore, demoAfter}, compare.StepsFormats(), ""},
		{[]string{"probe", "--out", filepath.Join(dir, "p")}, report.ProbeFormats(), ""},
		{[]string{"analyze", gc}, analysis.Formats(), ""},
		{[]string{"analyze", "../verdict/testdata/runs/cpu-hot"}, analysis.Formats(), ""},
		// A run folder has no HTML page of its own: analyze's list lets
		// html through, the run's refuses it.
		{[]string{"analyze", "../verdict/testdata/runs/cpu-hot", "--out", filepath.Join(dir, "p.html")}, report.RunFormats(), "html"},
		{[]string{"record", "--duration", "1s"}, report.RunFormats(), ""},
		{[]string{"run", "--target", "http://127.0.0.1:1/", "--duration", "2s"}, report.RunFormats(), ""},
		{[]string{"runs", "--catalog", filepath.Join(dir, "c.db")}, report.TextJSON(), ""},
		{[]string{"jvm"}, report.TextJSON(), ""},
		{[]string{"load", "http://127.0.0.1:1/"}, report.TextJSON(), ""},
		{[]string{"experiment", filepath.Join(dir, "none.yaml")}, experiment.Formats(), ""},
	}
	for _, c := range cases {
		for _, lang := range []string{"en", "zh"} {
			env, out, errb := testEnv()
			bad := c.bad
			if bad == "" {
				bad = "yaml"
			}
			args := append(append([]string{}, c.args...), "-o", bad, "--lang", lang)
			code := runRoot(t, env, args...)
			want := `--output: unknown format "` + bad + `" (want ` + c.fs.Text().EN + ")"
			if lang == "zh" {
				want = `--output：未知格式 "` + bad + `"（应为 ` + c.fs.Text().ZH + "）"
			}
			if code != ExitUsage || !strings.Contains(errb.String(), want) || out.Len() != 0 {
				t.Errorf("%s (%s): exit %d, stderr %q, want %q", strings.Join(c.args, " "), lang, code, errb.String(), want)
			}
		}
	}
}

// TestOutputAliases: md is Markdown wherever Markdown is listed, and the
// list a message gives is the list Parse accepts.
func TestOutputAliases(t *testing.T) {
	env, out, _ := testEnv()
	if code := runRoot(t, env, "analyze", "../verdict/testdata/runs/cpu-hot", "-o", "md"); code != 0 || !strings.HasPrefix(out.String(), "# ") {
		t.Errorf("analyze RUN_DIR -o md: exit %d\n%.200s", code, out.String())
	}
	env, out, _ = testEnv()
	if code := runRoot(t, env, "compare", demoBefore, demoAfter, "-o", "md"); code != 0 || !strings.Contains(out.String(), "| metric") {
		t.Errorf("compare -o md: exit %d\n%.200s", code, out.String())
	}
	for _, fs := range []report.Formats{report.CheckFormats(), porting.Formats(), compare.Formats(), compare.ProbeFormats(), analysis.Formats()} {
		for _, f := range fs {
			if !strings.Contains(fs.Text().EN, string(f)) || !strings.Contains(fs.Text().ZH, string(f)) {
				t.Errorf("%v: %q is not in the message %q / %q", fs, f, fs.Text().EN, fs.Text().ZH)
			}
			if g, ok := fs.Parse(string(f)); !ok || g != f {
				t.Errorf("%v: %q not accepted", fs, f)
			}
		}
	}
}

// TestCompareProbesHTML: `compare PROBE_A PROBE_B -o html` writes the
// self-contained page of the same comparison -o json gives: the slower
// figure shown worse with its change, the setting that differs.
func TestCompareProbesHTML(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, k float64, thp string) string {
		t0 := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
		rounds := []float64{95, 96, 97, 98, 99, 101, 104}
		for i := range rounds {
			rounds[i] *= k
		}
		r := &probe.Result{Schema: probe.Schema, Tool: "tuneloop test", Start: t0, End: t0.Add(10 * time.Second), Rounds: 7, Parts: []string{probe.PartCPU},
			Host: probe.Host{Name: name, Kernel: "6.1", Arch: "amd64", CPUs: 2, Nodes: 1, THP: thp},
			Figures: []probe.Figure{{ID: "cpu.syscall", Part: probe.PartCPU, Unit: "ns", Name: finding.T("system call (getppid)", "系统调用（getppid）"),
				Rounds: rounds, Median: rounds[3], Lo: rounds[1], Hi: rounds[5], Coverage: 0.98, OK: true, OthersBusyPct: 2}}}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := runfolder.WriteJSONAtomic(filepath.Join(p, probe.File), r); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("a", 1, "madvise"), write("b", 1.3, "always")
	env, out, errb := testEnv()
	if code := runRoot(t, env, "compare", a, b, "-o", "html"); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	page := out.String()
	for _, want := range []string{"<!DOCTYPE html>", "system call (getppid)", `class="badge sev-critical">B WORSE`, "+30.0%", `aria-label="change"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("the page must not reach the network")
	}
	env, out, _ = testEnv()
	if code := runRoot(t, env, "compare", a, b, "-o", "json"); code != 0 || !strings.Contains(out.String(), `"verdict": "worse"`) {
		t.Errorf("json: exit %d\n%s", code, out)
	}
	env, _, errb = testEnv()
	if code := runRoot(t, env, "compare", a, b, "-o", "junit"); code != ExitUsage || !strings.Contains(errb.String(), "junit") {
		t.Errorf("junit: exit %d %s", code, errb)
	}
}
