package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/testchild"
)

// startTestJVM runs internal/jvm/attach/testdata/Sleeper.java and returns its pid.
func startTestJVM(t *testing.T, jvmArgs ...string) int {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	src, _ := filepath.Abs(filepath.Join("..", "jvm", "attach", "testdata", "Sleeper.java"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, java, append(append(jvmArgs[:len(jvmArgs):len(jvmArgs)], src), "120")...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); testchild.ReapJVM(cmd) })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "READY ") {
				ready <- true
			}
		}
		close(ready)
	}()
	select {
	case <-ready:
	case <-time.After(90 * time.Second):
		t.Fatal("the test JVM did not start")
	}
	return cmd.Process.Pid
}

func jvmEnv() (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}, &out, &errb
}

func TestJVMDumpSeries(t *testing.T) {
	pid := startTestJVM(t)
	env, out, _ := jvmEnv()
	raw := t.TempDir()
	gc := filepath.Join(t.TempDir(), "gc.log")
	err := RunJVM(context.Background(), env, &JVMOptions{PID: pid, Dumps: 2, Interval: 300 * time.Millisecond,
		Flags: true, Props: true, Heap: true, GCLog: gc, Raw: raw, Output: "text", Timeout: 5 * time.Second, JCmd: "VM.uptime"})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"JVM " + strconv.Itoa(pid), "attached in", "Flags: GC ", "-XX:MaxHeapSize=", "== Dump 1", "== Dump 2",
		"== Across dumps (2)", "Metaspace", "java.vm.name=", "GC logging switched on, writing to " + gc, "what=all=off",
		"== VM.uptime", "Raw outputs saved in"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, f := range []string{"jcmd.txt", "vm-version.txt", "vm-flags.txt", "thread-print-1.txt", "thread-print-2.txt", "vm-system-properties.txt", "gc-heap-info.txt"} {
		if b, err := os.ReadFile(filepath.Join(raw, f)); err != nil || len(b) == 0 {
			t.Errorf("raw %s: %v", f, err)
		}
	}
	if t.Failed() {
		t.Log(s)
	}
}

func TestJVMJSONAndList(t *testing.T) {
	pid := startTestJVM(t)
	env, out, _ := jvmEnv()
	if err := RunJVM(context.Background(), env, &JVMOptions{PID: pid, Dumps: 1, Output: "json", Lang: "zh"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		PID     int
		Version string
		Flags   struct {
			XmxBytes int64 `json:"xmx_bytes"`
		}
		Dumps    []json.RawMessage
		Findings []json.RawMessage
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.PID != pid || doc.Version == "" || doc.Flags.XmxBytes == 0 || len(doc.Dumps) != 1 || doc.Findings == nil {
		t.Errorf("%+v", doc)
	}
	// The knowledge base's jvm.* checks ran on this process: the test JVM has
	// no -XX:+HeapDumpOnOutOfMemoryError.
	found := false
	for _, raw := range doc.Findings {
		var f struct{ ID, Subject, Status string }
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		if f.ID == "jvm.heapdump-oom" && f.Status == "fail" && f.Subject == "pid "+strconv.Itoa(pid) {
			found = true
		}
	}
	if !found {
		t.Errorf("no jvm.heapdump-oom finding for pid %d among %d findings", pid, len(doc.Findings))
	}

	// The command line: --jcmd alone runs that command, no thread dump.
	env, out, _ = jvmEnv()
	c := newJVMCmd(env)
	c.SetArgs([]string{strconv.Itoa(pid), "--jcmd", "VM.uptime", "--lang", "en"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "== VM.uptime\n") || strings.Contains(s, "== Dump") {
		t.Errorf("--jcmd:\n%s", s)
	}

	env, out, _ = jvmEnv()
	if err := RunJVM(context.Background(), env, &JVMOptions{Output: "text"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "PID") || !strings.Contains(out.String(), strconv.Itoa(pid)+" ") {
		t.Errorf("list lacks pid %d:\n%s", pid, out)
	}
}

func TestJVMErrors(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	env, _, _ := jvmEnv()
	err := RunJVM(context.Background(), env, &JVMOptions{PID: cmd.Process.Pid, Dumps: 1, Output: "text", Lang: "zh"})
	if !errors.Is(err, attach.ErrNoSuchProcess) || !strings.Contains(err.Error(), "进程不存在") {
		t.Errorf("exited pid: %v", err)
	}
	var ee *ExitError
	for _, o := range []*JVMOptions{
		{PID: 1, Output: "xml"},
		{PID: 1, Output: "text", Via: "ssh"},
		{PID: 1, Output: "text", Dumps: -1},
		{PID: 1, Output: "text", Dumps: 2},
		{PID: 1, Output: "text", Dumps: 1, GCLog: "gc.log"},
	} {
		if err := RunJVM(context.Background(), env, o); !errors.As(err, &ee) || ee.Code != ExitUsage {
			t.Errorf("%+v: got %v, want a usage error", o, err)
		}
	}
	c := newJVMCmd(env)
	c.SetArgs([]string{"notapid"})
	c.SetOut(env.Stdout)
	c.SetErr(env.Stderr)
	if err := c.Execute(); !errors.As(err, &ee) || ee.Code != ExitUsage {
		t.Errorf("bad PID: %v", err)
	}
}

// The logging configuration named on the JVM's command line is found and
// analysed: the synchronous RollingFileAppender of a typical Spring Boot
// logback-spring.xml is reported.
func TestJVMLoggingConfigFromCommandLine(t *testing.T) {
	conf, err := filepath.Abs(filepath.Join("..", "jvm", "logconf", "testdata", "logback-spring.xml"))
	if err != nil {
		t.Fatal(err)
	}
	pid := startTestJVM(t, "-Dlogback.configurationFile="+conf)
	env, out, _ := jvmEnv()
	if err := RunJVM(context.Background(), env, &JVMOptions{PID: pid, Output: "json"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Logging []struct {
			Path     string
			From     string
			Findings []struct{ ID, Status string }
		} `json:"logging_configs"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Logging) != 1 || doc.Logging[0].Path != conf || doc.Logging[0].From != "-Dlogback.configurationFile" {
		t.Fatalf("logging configs: %+v", doc.Logging)
	}
	found := false
	for _, f := range doc.Logging[0].Findings {
		found = found || (f.ID == "logconf.sync-file-appender" && f.Status == "fail")
	}
	if !found {
		t.Errorf("no logconf.sync-file-appender finding: %+v", doc.Logging[0].Findings)
	}
}

// TestJVMDumpsKeptWhenJVMExits: a JVM that exits after two of three dumps
// still gets those two analysed and reported (exit 1, saying why).
func TestJVMDumpsKeptWhenJVMExits(t *testing.T) {
	pid := startTestJVM(t)
	env, out, _ := jvmEnv()
	raw := t.TempDir()
	go func() {
		// After the second dump (t=0 and t=1s), before the third (t=2s).
		time.Sleep(1500 * time.Millisecond)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}()
	err := RunJVM(context.Background(), env, &JVMOptions{PID: pid, Dumps: 3, Interval: time.Second,
		Raw: raw, Output: "text", Timeout: 5 * time.Second})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !errors.Is(err, attach.ErrNoSuchProcess) {
		t.Fatalf("err = %v, want exit 1 naming the exited JVM", err)
	}
	s := out.String()
	for _, want := range []string{"== Dump 1", "== Dump 2", "== Across dumps (2)", "thread dump 3/3"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, f := range []string{"thread-print-1.txt", "thread-print-2.txt"} {
		if b, err := os.ReadFile(filepath.Join(raw, f)); err != nil || len(b) == 0 {
			t.Errorf("raw %s: %v", f, err)
		}
	}
	if t.Failed() {
		t.Log(s)
	}
}
