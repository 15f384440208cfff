package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"

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
	out, err := runAnalyze(t, []string{junk}, AnalyzeOptions{})
	var fe *ExitError
	if !errors.As(err, &fe) || fe.Code != ExitFailure || err.Error() != "no input could be read" || !strings.Contains(out, `notes.txt: text of no known format (first line: "hello")`) {
		t.Errorf("junk file: %v\n%s", err, out)
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

// `analyze empty.txt good.jstack`: the good file is reported, the empty one
// named as empty, and the exit code says one could not be read.
func TestAnalyzeEachInputOnItsOwn(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	jfr := filepath.Join(dir, "rec.jfr")
	os.WriteFile(jfr, []byte("FLR\x00\x00\x02\x00\x01rest"), 0o644)
	good := filepath.Join(dumpsDir, "jdk17_deadlock_jcmd.txt")
	out, err := runAnalyze(t, []string{empty, good, jfr, dir}, AnalyzeOptions{})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure || err.Error() != "3 of 4 inputs could not be read (the others are reported above)" {
		t.Errorf("exit: %v", err)
	}
	for _, want := range []string{
		"Not read: " + empty + ": empty",
		"Not read: " + jfr + ": a JFR recording that cannot be read",
		"Not read: " + dir + ": a directory, but not a run folder",
		"transfer-1", // the good dump's deadlock is reported
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%.2000s", want, out)
		}
	}
	res := &AnalyzeResult{}
	env, stdout, stderr := testEnv()
	err = RunAnalyze(context.Background(), env, []string{empty, good}, &AnalyzeOptions{Output: "json", Profile: "java-web", Now: fixedNow})
	if err == nil || json.Unmarshal(stdout.Bytes(), res) != nil || len(res.ThreadDumps) != 1 || len(res.Unreadable) != 1 || res.Unreadable[0].Name != empty {
		t.Errorf("json: %v %+v", err, res.Unreadable)
	}
	if !strings.Contains(stderr.String(), empty+": empty") {
		t.Errorf("stderr: %q", stderr.String())
	}
	// Chinese throughout.
	out, _ = runAnalyze(t, []string{empty, good}, AnalyzeOptions{Lang: "zh"})
	if !strings.Contains(out, "未能读取："+empty+"：空文件") {
		t.Errorf("zh:\n%.500s", out)
	}
}

// `jstack PID | tuneloop analyze -`, a gzip'd dump, a UTF-16 dump.
func TestAnalyzeStdinGzipUTF16(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(dumpsDir, "jdk17_deadlock_jcmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env, out, _ := testEnv()
	env.Stdin = strings.NewReader(string(raw))
	if err := RunAnalyze(context.Background(), env, []string{"-"}, &AnalyzeOptions{Output: "text", Profile: "java-web", Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "transfer-1") {
		t.Errorf("stdin:\n%.500s", out.String())
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	os.WriteFile(filepath.Join(dir, "dump.gz"), gz.Bytes(), 0o644)
	u := []byte{0xFF, 0xFE}
	for _, r := range utf16.Encode([]rune(strings.ReplaceAll(string(raw), "\n", "\r\n"))) {
		u = append(u, byte(r), byte(r>>8))
	}
	os.WriteFile(filepath.Join(dir, "ps.txt"), u, 0o644)
	for _, name := range []string{"dump.gz", "ps.txt"} {
		res := analyzeJSON(t, []string{filepath.Join(dir, name)}, AnalyzeOptions{})
		if len(res.ThreadDumps) != 1 || res.Findings[0].ID != "threaddump.deadlock" || len(res.Read) != 1 || res.Read[0].Encoding == "" {
			t.Errorf("%s: %d dumps, read %+v", name, len(res.ThreadDumps), res.Read)
		}
	}
}

// -o markdown renders thread dumps, GC logs and logging configurations.
func TestAnalyzeMarkdown(t *testing.T) {
	for _, f := range []string{filepath.Join(dumpsDir, "jdk17_deadlock_jcmd.txt"), filepath.Join(gcDir, "jdk17-g1.log"), "../../internal/jvm/logconf/testdata/logback-spring.xml"} {
		out, err := runAnalyze(t, []string{f}, AnalyzeOptions{Output: "markdown"})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !strings.HasPrefix(out, "# tuneloop analyze\n") || !strings.Contains(out, "## Findings (") || !strings.Contains(out, "```text\n") || len(out) < 500 {
			t.Errorf("%s: markdown:\n%.800s", f, out)
		}
	}
}

// Hostile inputs end at once with a message naming the file.
func TestAnalyzeHostileInputs(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero: a character device, not a file"},
		{"/dev/urandom", "/dev/urandom: a character device, not a file"},
	} {
		out, err := runAnalyze(t, []string{c.path}, AnalyzeOptions{})
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("%s: %v\n%s", c.path, err, out)
		}
	}
	env, out, _ := testEnv()
	z, _ := os.Open("/dev/zero")
	defer z.Close()
	env.Stdin = z
	err := RunAnalyze(context.Background(), env, []string{"-"}, &AnalyzeOptions{Output: "text", Profile: "java-web", MaxInput: "32M", Now: fixedNow})
	if err == nil || !strings.Contains(out.String(), "stdin: binary data, not text") {
		t.Errorf("zeros on stdin: %v\n%s", err, out.String())
	}
	for _, bad := range []AnalyzeOptions{{Format: "hprof"}, {MaxInput: "lots"}, {Profile: "nope", Cmdline: "java -jar x.jar"}} {
		var ee *ExitError
		if _, err := runAnalyze(t, []string{"/dev/null"}, bad); !errors.As(err, &ee) || ee.Code != ExitUsage {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	_, err = runAnalyze(t, nil, AnalyzeOptions{Profile: "nope", Cmdline: "java -jar x.jar", Lang: "zh"})
	if zh := finding.Localize(err, finding.ZH); zh != `--profile：未知的负载配置档 "nope"（应为 java-web、database 或 latency）` {
		t.Errorf("zh: %q", zh)
	}
}

// --format forces a reader: a GC log read as a thread dump is refused by
// the dump parser, saying so.
func TestAnalyzeForcedFormat(t *testing.T) {
	out, err := runAnalyze(t, []string{filepath.Join(gcDir, "jdk17-g1.log")}, AnalyzeOptions{Format: "hotspot"})
	if err == nil || !strings.Contains(out, "not a thread dump") {
		t.Errorf("%v\n%.400s", err, out)
	}
}

// SIGINT and SIGTERM end `analyze -` reading endless zeros within a couple
// of seconds, with a message (the built binary, as a user runs it).
func TestAnalyzeSignalEndsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "tuneloop")
	build := exec.Command("go", "build", "-o", bin, "github.com/tuneloop/tuneloop/cmd/tuneloop")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		// A FIFO that is opened for writing and never written: the read waits forever.
		fifo := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		cmd := exec.Command(bin, "analyze", fifo)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		start := time.Now()
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: still running 3 s after the signal", sig)
		}
		w.Close()
		if el := time.Since(start); el > 2*time.Second || cmd.ProcessState.ExitCode() == 0 || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: ended after %v, code %d, stderr %q", sig, el, cmd.ProcessState.ExitCode(), stderr.String())
		}
		// Endless zeros on stdin.
		cmd = exec.Command(bin, "analyze", "-")
		z, _ := os.Open("/dev/zero")
		cmd.Stdin = z
		stderr.Reset()
		cmd.Stderr = &stderr
		cmd.Start()
		time.Sleep(200 * time.Millisecond)
		cmd.Process.Signal(sig)
		done = make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: stdin zeros: still running 3 s after the signal", sig)
		}
		z.Close()
		if stderr.Len() == 0 {
			t.Errorf("%v: stdin zeros: no message", sig)
		}
	}
}

// Dumps of other JVMs and tools: a javacore's deadlock, VisualVM's lock
// contention, HP-UX dumps; a dump cut short is reported and said.
func TestAnalyzeOtherFormats(t *testing.T) {
	res := analyzeJSON(t, []string{filepath.Join(dumpsDir, "openj9_docs_deadlock_javacore.txt")}, AnalyzeOptions{})
	if len(res.ThreadDumps) != 1 || res.Findings[0].ID != "threaddump.deadlock" || res.Read[0].Format != "javacore" {
		t.Errorf("javacore: %d dumps, read %+v", len(res.ThreadDumps), res.Read)
	}
	res = analyzeJSON(t, []string{filepath.Join(dumpsDir, "jdk17_visualvm_jmx.tdump"), filepath.Join(dumpsDir, "samurai_hpux_hp.dmp")}, AnalyzeOptions{})
	if len(res.ThreadDumps) != 4 || res.Read[0].Format != "visualvm" || res.Read[1].Format != "hpux" {
		t.Errorf("visualvm + hpux: %d dumps, read %+v", len(res.ThreadDumps), res.Read)
	}
	src, err := os.ReadFile(filepath.Join(dumpsDir, "jdk17_contention_jcmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.txt")
	os.WriteFile(cut, src[:len(src)/2], 0o644)
	res = analyzeJSON(t, []string{cut}, AnalyzeOptions{})
	if len(res.DumpNotes) != 1 || res.DumpNotes[0].Truncated.IsZero() {
		t.Errorf("cut dump not said: %+v", res.DumpNotes)
	}
	out, err := runAnalyze(t, []string{cut}, AnalyzeOptions{Lang: "zh"})
	if err != nil || !strings.Contains(out, "不完整: 输入在转储的结尾行") {
		t.Errorf("zh: %v\n%.600s", err, out)
	}
	// A file forced to be read as a logging configuration: refused in Chinese.
	notes := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notes, []byte("hello\n"), 0o644)
	out, _ = runAnalyze(t, []string{notes}, AnalyzeOptions{Lang: "zh", Format: "logconf"})
	if !strings.Contains(out, "不是 log4j/log4j2/logback 配置：没有 log4j.* 或 appender./logger./rootLogger 键") {
		t.Errorf("zh refusal:\n%s", out)
	}
}

// -o html writes one self-contained page of the GC log and the dump set:
// no network, both languages, the dumps' and the log's names in it.
func TestAnalyzeHTMLPage(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		out := filepath.Join(t.TempDir(), "page.html")
		_, err := runAnalyze(t, []string{"../jvm/gclog/testdata/live/jdk17-g1-12s.log",
			"../jvm/threaddump/testdata/jdk17_zoo_fsync_series/dump1.txt", "../jvm/threaddump/testdata/jdk17_zoo_fsync_series/dump2.txt"},
			AnalyzeOptions{Output: "html", Out: out, Lang: lang})
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		for _, want := range []string{"Content-Security-Policy", "<svg", "dump1.txt", "jdk17-g1-12s.log"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s page lacks %q", lang, want)
			}
		}
		if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
			t.Errorf("%s page references the network", lang)
		}
		if lang == "zh" && !strings.Contains(page, "线程") {
			t.Errorf("zh page not in Chinese")
		}
	}
	// -o html needs --out, and inputs it can draw.
	if _, err := runAnalyze(t, []string{"../jvm/gclog/testdata/live/jdk17-g1-12s.log"}, AnalyzeOptions{Output: "html"}); exitCode(err) != ExitUsage {
		t.Errorf("-o html without --out: %v", err)
	}
}

// --cmdline refuses what is not a JVM, and --jdk renders the advice for the
// release given: unified logging on 17, the JDK 8 flags on 8.
func TestAnalyzeCmdlineJDK(t *testing.T) {
	if _, err := runAnalyze(t, nil, AnalyzeOptions{Output: "text", Cmdline: "ls -la"}); exitCode(err) != ExitUsage {
		t.Errorf("ls -la audited as a JVM: %v", err)
	}
	out17, err := runAnalyze(t, nil, AnalyzeOptions{Output: "text", Cmdline: "java -Xmx4g -jar app.jar", JDK: 17})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out17, "-Xlog:gc") || strings.Contains(out17, "PrintGCDetails") {
		t.Errorf("JDK 17 advice:\n%s", out17)
	}
	out8, err := runAnalyze(t, nil, AnalyzeOptions{Output: "text", Cmdline: "java -Xmx4g -jar app.jar", JDK: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out8, "PrintGCDetails") || strings.Contains(out8, "-Xlog:gc") {
		t.Errorf("JDK 8 advice:\n%s", out8)
	}
}
