package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
)

// TestRunDiskFullKeepsAndSays: the run folder's disk (a small tmpfs the
// test mounts; root only) fills during a run of a real JVM. Nothing of the
// run is left in the JVM's /tmp (a 4 MB GC log was), what fits is kept,
// the message names what was lost (the JFR recording was lost silently),
// and the catalog lists the run as incomplete (it was not catalogued).
func TestRunDiskFullKeepsAndSays(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	start, url, pidFile := tinyService(t)
	mnt, fill := smallDisk(t, "48m")
	dir := filepath.Join(mnt, "run")
	db := filepath.Join(t.TempDir(), "runs.db")
	var once sync.Once
	var mu sync.Mutex
	var notes []string
	hooks := RunHooks{
		OnLoad: func(p loadgen.Progress) {
			if p.Elapsed >= time.Second {
				once.Do(fill)
			}
		},
		Note: func(t finding.Text) { mu.Lock(); notes = append(notes, t.EN); mu.Unlock() },
	}
	res, err := LoadAndRecord(context.Background(), RunOptions{Target: url, Start: start, StartTimeout: 60 * time.Second, StopTimeout: 2 * time.Second,
		WarmUp: time.Second, Load: loadgen.Config{Users: 2, Duration: 3 * time.Second, Requests: []loadgen.Request{{URL: url}}},
		Interval: 250 * time.Millisecond, Out: dir, Catalog: db, Getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return filepath.Join(filepath.Dir(db), "state")
			}
			return ""
		}}, hooks)
	if err != nil {
		t.Fatalf("a full disk lost the run: %v", err)
	}
	jvm := readPID(pidFile)
	if res.WriteErr == nil || !strings.Contains(res.WriteErr.Error(), "no space left on device") || !strings.Contains(res.WriteErr.Error(), JFRFile) {
		t.Errorf("the error does not name the lost recording: %v\nnotes: %q", res.WriteErr, notes)
	}
	if left := leftovers(jvm); len(left) > 0 {
		t.Errorf("left outside the run folder: %v", left)
	}
	if m, _ := filepath.Glob(filepath.Join(mnt, "*.service.log")); len(m) > 0 {
		t.Errorf("left beside the run folder: %v", m)
	}
	cat, err := catalog.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	es, err := cat.List(context.Background())
	if err != nil || len(es) != 1 || es[0].Dir != dir || es[0].Status != runfolder.Recording {
		t.Errorf("catalog: %v %+v, want the run listed as incomplete", err, es)
	}
}
