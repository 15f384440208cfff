package remote

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestGate: a job with a gate is copied and said started, but its binary
// runs only once the gate opens.
func TestGate(t *testing.T) {
	d := startSSHD(t)
	c, err := Dial(context.Background(), d.Spec(), opts(d))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ran := filepath.Join(t.TempDir(), "ran")
	bin := script(t, `date +%s%N > `+ran+"\n")
	gate := make(chan struct{})
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(context.Background(), Job{Binary: bin, Limit: 30 * time.Second, Gate: gate, Started: func() { close(started) }})
		done <- err
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("never said started")
	}
	time.Sleep(500 * time.Millisecond)
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the binary ran before the gate opened")
	}
	opened := time.Now()
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(ran)
	ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || time.Unix(0, ns).Before(opened) {
		t.Errorf("ran at %q, the gate opened at %d", b, opened.UnixNano())
	}
}
