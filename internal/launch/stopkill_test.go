package launch

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStopSaysItKilled: a service whose shutdown outlasts the stop timeout
// is killed and Stop says so (it was silent); one that stops on SIGTERM is
// not reported.
func TestStopSaysItKilled(t *testing.T) {
	dir := t.TempDir()
	// A shutdown hook that takes 30 s: SIGTERM starts it, only SIGKILL ends it.
	slow, err := Start(`trap 'sleep 30' TERM; while :; do sleep 0.1; done`, filepath.Join(dir, "slow.log"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the trap set
	slow.StopTimeout = 500 * time.Millisecond
	slow.Stop()
	txt := slow.KilledText()
	if !slow.Killed || txt == nil || !strings.Contains(txt.EN, "killed with SIGKILL") || !strings.Contains(txt.EN, "--stop-timeout") || txt.ZH == "" {
		t.Fatalf("killed %v, text %v", slow.Killed, txt)
	}
	quick, err := Start(`while :; do sleep 0.1; done`, filepath.Join(dir, "quick.log"))
	if err != nil {
		t.Fatal(err)
	}
	quick.StopTimeout = 5 * time.Second
	quick.Stop()
	if quick.Killed || quick.KilledText() != nil {
		t.Errorf("a service that stopped on SIGTERM is reported killed")
	}
}
