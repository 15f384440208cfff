package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// The live line is drawn and wiped on a terminal only.
func TestLiveStatus(t *testing.T) {
	for _, c := range []struct {
		terminal, quiet bool
		want            string
	}{{true, false, "\r\033[K● 1\r\033[K"}, {true, true, ""}, {false, false, ""}} {
		var b bytes.Buffer
		s := newLiveStatus(&Env{Terminal: c.terminal}, &b, c.quiet)
		s.show("● 1")
		s.clear()
		if b.String() != c.want {
			t.Errorf("terminal %v quiet %v: %q, want %q", c.terminal, c.quiet, b.String(), c.want)
		}
	}
}

// The target exiting ends the run early, finalised, with the reason.
func TestRecordTargetExits(t *testing.T) {
	c := startTestChild(t, "busy=0,idle=3", 1)
	env, out, errb := recEnv(t)
	env.Terminal = true // the live status line is drawn and cleared
	dir := filepath.Join(t.TempDir(), "run")
	o := &RecordOptions{Duration: 20 * time.Second, Interval: 100 * time.Millisecond, PID: c.PID, Out: dir, Output: "text", NoCatalog: true,
		OnStart: func(string) { time.AfterFunc(600*time.Millisecond, c.Stop) }}
	start := time.Now()
	if err := RunRecord(context.Background(), env, o); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if time.Since(start) > 10*time.Second {
		t.Error("did not stop when the target exited")
	}
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Status != runfolder.Interrupted || !strings.Contains(f.Manifest.Reason, "exited") {
		t.Errorf("manifest: %s %q", f.Manifest.Status, f.Manifest.Reason)
	}
	if s := out.String(); !strings.Contains(s, "\r\033[K● ") || !strings.Contains(s, "ended early: target process") {
		t.Errorf("output: %q", s)
	}
}

// The cobra commands wire their flags to the options.
func TestRecordAndRunsCommands(t *testing.T) {
	env, out, errb := recEnv(t)
	dir := filepath.Join(t.TempDir(), "r")
	db := filepath.Join(t.TempDir(), "cat.db")
	cmd := newRecordCmd(env)
	cmd.SetArgs([]string{"--duration", "400ms", "--interval", "100ms", "--out", dir, "--catalog", db, "-o", "json", "--disable", "tcp"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Status != runfolder.Complete || f.Manifest.IntervalMS != 100 || f.Manifest.Samplers["tcp"] != "off" ||
		f.Manifest.Samplers["threads"] != "n/a (no target)" || len(f.Manifest.Argv) == 0 {
		t.Errorf("manifest: %+v", f.Manifest)
	}
	out.Reset()
	rc := newRunsCmd(env)
	rc.SetArgs([]string{"--catalog", db})
	if err := rc.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), dir) || !strings.Contains(out.String(), "complete") {
		t.Errorf("runs:\n%s", out.String())
	}
	rc = newRunsCmd(env)
	rc.SetArgs([]string{"rm", "--catalog", db, dir})
	if err := rc.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	rc = newRunsCmd(env)
	rc.SetArgs([]string{"--catalog", db})
	rc.ExecuteContext(context.Background())
	if !strings.Contains(out.String(), "No runs recorded yet.") {
		t.Errorf("after rm:\n%s", out.String())
	}
}

// run --out onto an earlier run fails at once, in both languages, before
// the --start command runs.
func TestRunRefusesUsedOut(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "before")
	if err := os.MkdirAll(filepath.Join(out, "raw"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(tmp, "started")
	for _, lang := range []string{"en", "zh"} {
		env, _, errb := recEnv(t)
		start := time.Now()
		err := RunRun(context.Background(), env, &RunOptions{Target: "http://127.0.0.1:9/", Duration: 10 * time.Second,
			Interval: time.Second, Start: "touch " + marker, StartTimeout: 30 * time.Second, Out: out, Output: "text", Lang: lang})
		if Code(env, err) != ExitFailure || time.Since(start) > 2*time.Second {
			t.Errorf("%s: %v after %s", lang, err, time.Since(start))
		}
		want := map[string]string{"en": "is not empty", "zh": "不是空目录"}[lang]
		if !strings.Contains(errb.String(), want) {
			t.Errorf("%s: %q", lang, errb.String())
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the service was started")
	}
}

// run --fail-on-regression gates an A/B run: alone it would be ignored, so
// it is a usage error naming what to do.
func TestRunGateNeedsB(t *testing.T) {
	env, _, errb := recEnv(t)
	err := RunRun(context.Background(), env, &RunOptions{Target: "http://127.0.0.1:9/", Duration: 10 * time.Second,
		Interval: time.Second, FailOnRegPct: 5, Out: filepath.Join(t.TempDir(), "r"), Output: "text", Lang: "en"})
	if Code(env, err) != ExitUsage || !strings.Contains(errb.String(), "--start-b") {
		t.Errorf("code %d, stderr %q", Code(env, err), errb.String())
	}
}
