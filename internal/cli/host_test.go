package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/remote/sshdtest"
)

// ids are the finding IDs of a check JSON document, sorted.
func checkIDs(t *testing.T, b []byte) []string {
	t.Helper()
	var doc struct {
		Findings []struct {
			ID string `json:"id"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v: %.300s", err, b)
	}
	// The jvm.* rules give a finding per running JVM, and JVMs of other
	// tests come and go between the two audits: the host's own rules are
	// what both audits must agree on, each ID once.
	var ids []string
	seen := map[string]bool{}
	for _, f := range doc.Findings {
		if !strings.HasPrefix(f.ID, "jvm.") && !seen[f.ID] {
			seen[f.ID] = true
			ids = append(ids, f.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// TestCheckRecordHost runs check and record on "another host" (this one,
// through a real sshd on 127.0.0.1) with a freshly built tuneloop binary.
func TestCheckRecordHost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tuneloop")
	}
	d := sshdtest.Start(t)
	exe := filepath.Join(t.TempDir(), "tuneloop")
	build := exec.Command("go", "build", "-o", exe, "../../cmd/tuneloop")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	host := hostOptions{Host: d.Spec(), Identity: []string{d.UserKey}, KnownHosts: d.Known, Exe: exe}

	env, out, errb := testEnv()
	if err := RunCheck(context.Background(), env, isolated(t, &CheckOptions{Output: "json", Profile: "java-web", Remote: host})); err != nil {
		t.Fatalf("check --host: %v (%s)", err, errb.String())
	}
	remoteIDs := checkIDs(t, out.Bytes())
	env, out, _ = testEnv()
	if err := RunCheck(context.Background(), env, isolated(t, &CheckOptions{Output: "json", Profile: "java-web", ProcRoot: "/proc", SysRoot: "/sys", EtcRoot: "/etc"})); err != nil {
		t.Fatal(err)
	}
	if local := checkIDs(t, out.Bytes()); len(remoteIDs) == 0 || strings.Join(local, ",") != strings.Join(remoteIDs, ",") {
		t.Errorf("the same host audited over SSH and here differ:\nremote %v\nlocal  %v", remoteIDs, local)
	}

	// An unknown host key: refused before anything is copied.
	env, _, _ = testEnv()
	bad := host
	bad.KnownHosts = filepath.Join(t.TempDir(), "none")
	err := RunCheck(context.Background(), env, &CheckOptions{Output: "text", Profile: "java-web", Remote: bad})
	if err == nil || !strings.Contains(finding.Localize(err, finding.ZH), "主机密钥未知") {
		t.Errorf("unknown host key: %v", err)
	}

	// record --host: the run folder comes back and is reported here.
	env, out, errb = testEnv()
	dir := filepath.Join(t.TempDir(), "run")
	if err := RunRecord(context.Background(), env, &RecordOptions{Duration: 2 * time.Second, Interval: 500 * time.Millisecond,
		Out: dir, NoCatalog: true, Output: "json", Remote: host}); err != nil {
		t.Fatalf("record --host: %v (%s)", err, errb.String())
	}
	for _, f := range []string{"manifest.json", "raw/samples.jsonl.gz"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the run folder came back without %s: %v", f, err)
		}
	}
	if !strings.Contains(out.String(), `"findings"`) && !strings.Contains(out.String(), `"decision"`) {
		t.Errorf("no report: %.300s", out.String())
	}
	env, _, _ = testEnv()
	if err := RunRecord(context.Background(), env, &RecordOptions{Interval: time.Second, Output: "json", Remote: host}); err == nil ||
		!strings.Contains(err.Error(), "--host needs --duration") {
		t.Errorf("unbounded remote record: %v", err)
	}
}
