package remote

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"
)

// AnswerClock says ready, then one wall clock reading per request line,
// shifted by the skew, and stops when its input ends.
func TestAnswerClock(t *testing.T) {
	var out bytes.Buffer
	before := time.Now().Add(time.Hour)
	if err := AnswerClock(strings.NewReader("t\nt\n"), &out, time.Hour); err != nil {
		t.Fatal(err)
	}
	after := time.Now().Add(time.Hour)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "ready" {
		t.Fatalf("answer: %q", out.String())
	}
	for _, l := range lines[1:] {
		ns, err := strconv.ParseInt(l, 10, 64)
		if err != nil || ns < before.UnixNano() || ns > after.UnixNano() {
			t.Errorf("reading %q not within [%d, %d] (%v)", l, before.UnixNano(), after.UnixNano(), err)
		}
	}
	out.Reset()
	if err := AnswerClock(nil, &out, 0); err != nil || out.String() != "ready\n" {
		t.Errorf("no input: %q %v", out.String(), err)
	}
}
