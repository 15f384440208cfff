//go:build e2e

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/remote/sshdtest"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/testchild"
)

// TestZooRemoteSameVerdict: the zoo's sync-logging service, recorded once by
// a local `run --start` and once by `run --host` through sshd on 127.0.0.1
// (the service started here by the test, the recorder copied and run
// "there" over SSH, attaching by --pid): both verdicts name the same root
// cause finding and the same lock class. Speeds are not compared.
func TestZooRemoteSameVerdict(t *testing.T) {
	jar := needZoo(t)
	z := zooRun{scenario: "sync-logging", users: 30, duration: 6 * time.Second, warmUp: 3 * time.Second}
	local := runZoo(t, z)

	d := sshdtest.Start(t)
	ho := oneHost(d, buildTuneloop(t))
	ho.Hosts = []string{"app=" + d.Spec()}
	port := freePort(t)
	dir := t.TempDir()
	java := exec.Command("sh", "-c", fmt.Sprintf("exec java -jar %s --scenario %s --port %d --log-dir %s --data-dir %s",
		jar, z.scenario, port, filepath.Join(dir, "logs"), filepath.Join(dir, "data")))
	java.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := java.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-java.Process.Pid, syscall.SIGKILL); testchild.ReapJVM(java) })
	target := fmt.Sprintf("http://127.0.0.1:%d/api", port)
	for deadline := time.Now().Add(90 * time.Second); ; {
		if r, err := http.Get(target); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the zoo service on %d did not answer within 90 s", port)
		}
		time.Sleep(200 * time.Millisecond)
	}
	env, out, errb := testEnv()
	o := &RunOptions{Target: target, Users: z.users, Duration: z.duration, WarmUp: z.warmUp, Interval: 500 * time.Millisecond,
		DumpEvery: 2 * time.Second, PID: java.Process.Pid, Out: filepath.Join(dir, "run"), Output: "json", Profile: "java-web",
		NoCatalog: true, Quiet: true, Remote: ho}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := RunRun(ctx, env, o); err != nil {
		t.Fatalf("run --host: %v\n%s", err, errb)
	}
	var remote report.RunPage
	if err := json.Unmarshal(out.Bytes(), &remote); err != nil {
		t.Fatalf("run --host output: %v %.300s", err, out.String())
	}
	if remote.Hosts == nil {
		t.Error("run --host printed no hosts section")
	}
	lv, rv := culprit(t, "local", local), culprit(t, "--host", &remote)
	t.Logf("local: %s\n--host: %s", lv, rv)
	if lv != rv {
		t.Errorf("verdict of a local run %q, of run --host %q", lv, rv)
	}
	if !strings.HasPrefix(lv, "threaddump.lock.logback") {
		t.Errorf("the local run's verdict %q is not the zoo's logback appender lock", lv)
	}
}

// culprit is the verdict's root-cause finding ID and lock class (its
// subject "ID/Class@address" without the address, which is per JVM).
func culprit(t *testing.T, which string, p *report.RunPage) string {
	t.Helper()
	if p.Verdict == nil {
		t.Fatalf("%s: no verdict; findings: %v", which, pageKeys(p))
	}
	s := p.Verdict.Subject
	if i := strings.LastIndexByte(s, '@'); i > 0 {
		s = s[:i]
	}
	for _, e := range p.Verdict.Evidence {
		if e.Key == "waiting_at" {
			t.Logf("%s: waiting at %s", which, e.Value)
		}
	}
	return s
}
