package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

const (
	dumpsDir = "../../internal/jvm/threaddump/testdata"
	gcDir    = "../../internal/jvm/gclog/testdata/live"
)

func runAnalyze(t *testing.T, args []string, o AnalyzeOptions) (string, error) {
	t.Helper()
	env, out, _ := testEnv()
	o.Now = fixedNow
	if o.Output == "" {
		o.Output = "text"
	}
	if o.Profile == "" {
		o.Profile = "java-web"
	}
	err := RunAnalyze(context.Background(), env, args, &o)
	return out.String(), err
}

func analyzeJSON(t *testing.T, args []string, o AnalyzeOptions) *AnalyzeResult {
	t.Helper()
	o.Output = "json"
	out, err := runAnalyze(t, args, o)
	if err != nil {
		t.Fatal(err)
	}
	var res AnalyzeResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	return &res
}

func hasFinding(fs []finding.Finding, id string, st finding.Status) *finding.Finding {
	for i := range fs {
		if fs[i].ID == id && fs[i].Status == st {
			return &fs[i]
		}
	}
	return nil
}

// A real JDK 17 deadlock dump is recognised as a dump and the deadlock is
// the top finding, critical.
func TestAnalyzeDeadlockDump(t *testing.T) {
	res := analyzeJSON(t, []string{filepath.Join(dumpsDir, "jdk17_deadlock_jcmd.txt")}, AnalyzeOptions{})
	if len(res.ThreadDumps) != 1 || res.GC != nil {
		t.Fatalf("want one dump and no GC report, got %d dumps, gc %v", len(res.ThreadDumps), res.GC != nil)
	}
	if res.Findings[0].ID != "threaddump.deadlock" || res.Findings[0].Severity != finding.Critical {
		t.Errorf("top finding %s/%s, want a critical threaddump.deadlock", res.Findings[0].ID, res.Findings[0].Severity)
	}
	_, err := runAnalyze(t, []string{filepath.Join(dumpsDir, "jdk17_deadlock_jcmd.txt")}, AnalyzeOptions{FailOn: "critical"})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFindings {
		t.Errorf("--fail-on critical on a deadlock: %v", err)
	}
}

// The logback-style contention dump names the appender lock as the culprit.
func TestAnalyzeLoggingContention(t *testing.T) {
	res := analyzeJSON(t, []string{filepath.Join(dumpsDir, "jdk17_logbacklike_jcmd.txt")}, AnalyzeOptions{})
	found := false
	for _, f := range res.Findings {
		if strings.Contains(f.ID, "logback") && f.Status == finding.Fail {
			found = true
		}
	}
	if !found {
		t.Errorf("no logback culprit among %d findings", len(res.Findings))
	}
}

// Several dumps are compared over time as well as one by one.
func TestAnalyzeSeveralDumps(t *testing.T) {
	files := []string{filepath.Join(dumpsDir, "jdk17_contention_jcmd.txt"), filepath.Join(dumpsDir, "jdk25_contention_jcmd.txt")}
	res := analyzeJSON(t, files, AnalyzeOptions{})
	if len(res.ThreadDumps) != 2 {
		t.Fatalf("got %d dump reports, want 2", len(res.ThreadDumps))
	}
	out, err := runAnalyze(t, files, AnalyzeOptions{Lang: "zh"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "线程") {
		t.Errorf("--lang zh output is not Chinese:\n%.300s", out)
	}
}

// A real GC log is recognised by content and summarised; rotated pieces are
// accepted together.
func TestAnalyzeGCLog(t *testing.T) {
	res := analyzeJSON(t, []string{filepath.Join(gcDir, "jdk17-g1.log")}, AnalyzeOptions{})
	if res.GC == nil || len(res.ThreadDumps) != 0 {
		t.Fatalf("GC log not recognised as one")
	}
	if res.GC.Summary.Pauses == 0 {
		t.Errorf("no pauses counted: %+v", res.GC.Summary.Pauses)
	}
	out, err := runAnalyze(t, []string{filepath.Join(gcDir, "jdk25-zgc.log")}, AnalyzeOptions{})
	if err != nil || !strings.Contains(out, "ZGC") {
		t.Errorf("ZGC log: %v\n%.300s", err, out)
	}
}

// A dump and a GC log in one call: both analysed, findings merged and ranked.
func TestAnalyzeMixedInputs(t *testing.T) {
	res := analyzeJSON(t, []string{filepath.Join(gcDir, "jdk17-serial.log"), filepath.Join(dumpsDir, "jdk25_deadlock_jcmd.txt")}, AnalyzeOptions{})
	if res.GC == nil || len(res.ThreadDumps) != 1 {
		t.Fatalf("mixed inputs: gc %v, dumps %d", res.GC != nil, len(res.ThreadDumps))
	}
	if res.Findings[0].Severity != finding.Critical {
		t.Errorf("findings not ranked: first is %s %s", res.Findings[0].ID, res.Findings[0].Severity)
	}
}

func TestAnalyzeCmdline(t *testing.T) {
	res := analyzeJSON(t, nil, AnalyzeOptions{Cmdline: "nohup /usr/java/jdk1.8.0_181/bin/java -Xms1g -Xmx4g -jar app.jar --port 8080 &"})
	for _, id := range []string{"jvm.heap.xms-xmx", "jvm.gc.logging", "jvm.heapdump-oom"} {
		if hasFinding(res.Findings, id, finding.Fail) == nil {
			t.Errorf("%s did not fire on the pasted command line", id)
		}
	}
	good := analyzeJSON(t, nil, AnalyzeOptions{Cmdline: "java -Xms4g -Xmx4g -XX:+UseG1GC -Xlog:gc*:file=gc.log -XX:+HeapDumpOnOutOfMemoryError -jar app.jar"})
	for _, f := range good.Findings {
		if f.Status == finding.Fail && f.Severity >= finding.Warning {
			t.Errorf("well-configured command line: %s fired (%s)", f.ID, f.Observed.EN)
		}
	}
}

// Files that are none of the known kinds, and missing files, are clear errors.
func TestAnalyzeUnrecognisedInput(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(junk, []byte("hello\nthis is not a dump\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runAnalyze(t, []string{junk}, AnalyzeOptions{})
	if err == nil || !strings.Contains(err.Error(), "notes.txt") || !strings.Contains(err.Error(), "not a thread dump") {
		t.Errorf("junk file: %v", err)
	}
	if _, err := runAnalyze(t, []string{filepath.Join(dir, "missing.log")}, AnalyzeOptions{}); err == nil {
		t.Error("missing file accepted")
	}
	var ee *ExitError
	if _, err := runAnalyze(t, nil, AnalyzeOptions{}); !errors.As(err, &ee) || ee.Code != ExitUsage {
		t.Errorf("no input: %v", err)
	}
}

// Logging configurations are recognised by content: the seeds' synchronous
// file appender is flagged, the async fix is not.
func TestAnalyzeLoggingConfig(t *testing.T) {
	const dir = "../../internal/jvm/logconf/testdata"
	sync := analyzeJSON(t, []string{filepath.Join(dir, "logback-spring.xml")}, AnalyzeOptions{})
	if len(sync.LogConfigs) != 1 || hasFinding(sync.Findings, "logconf.sync-file-appender", finding.Fail) == nil {
		t.Errorf("logback-spring.xml: configs %v, no sync-file-appender finding", sync.LogConfigs)
	}
	fixed := analyzeJSON(t, []string{filepath.Join(dir, "logback-spring-async.xml")}, AnalyzeOptions{})
	if hasFinding(fixed.Findings, "logconf.sync-file-appender", finding.Fail) != nil {
		t.Error("the AsyncAppender-wrapped config is still flagged as synchronous")
	}
	l4j := analyzeJSON(t, []string{filepath.Join(dir, "log4j.properties")}, AnalyzeOptions{})
	if hasFinding(l4j.Findings, "logconf.log4j1-eol", finding.Fail) == nil {
		t.Error("log4j 1.x end of life not reported")
	}
	// A Spring bean file is none of the known kinds.
	if _, err := runAnalyze(t, []string{filepath.Join(dir, "beans.xml")}, AnalyzeOptions{}); err == nil {
		t.Error("beans.xml accepted")
	}
}
