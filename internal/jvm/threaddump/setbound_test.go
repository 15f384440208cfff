package threaddump

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// dumpStream serves n copies of a real dump, each with its own timestamp
// (so each is distinct), without holding them; stop, when set, is called
// once after the k-th dump is served.
type dumpStream struct {
	body  string
	n, i  int
	buf   []byte
	k     int
	onK   func()
	start time.Time
}

func (s *dumpStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.i == s.n {
			return 0, io.EOF
		}
		if s.i == s.k && s.onK != nil {
			s.onK()
		}
		s.buf = []byte(s.start.Add(time.Duration(s.i)*time.Second).Format("2006-01-02 15:04:05") + "\n" + s.body + "\n")
		s.i++
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

func dumpBody(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/jdk17_contention_jcmd.txt")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "Full thread dump")
	if i < 0 {
		t.Fatal("no header in the fixture")
	}
	return s[i:]
}

// A log of many distinct dumps keeps a bounded set, spread evenly over the
// whole input and said so (it kept every dump: 1.2 GB of dumps was 8.5 GB
// of memory); the first and the last part of the log are both in it.
func TestReadSetBoundsWhatItKeeps(t *testing.T) {
	body := dumpBody(t)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 1000
	s := ReadSetContext(context.Background(), []Input{{Name: "long.log", R: &dumpStream{body: body, n: n, start: start}}})
	if s.Thinned == nil || s.Thinned.Read != n || len(s.Dumps) > maxSetDumps || s.Thinned.Kept != len(s.Dumps) {
		t.Fatalf("thinned %+v, %d dumps kept; want at most %d of %d", s.Thinned, len(s.Dumps), maxSetDumps, n)
	}
	if len(s.Dumps) < maxSetDumps/2 || len(s.Reports) != len(s.Dumps) || len(s.Findings) == 0 {
		t.Fatalf("%d dumps, %d reports, %d findings", len(s.Dumps), len(s.Reports), len(s.Findings))
	}
	first, last := s.Dumps[0].Time, s.Dumps[len(s.Dumps)-1].Time
	if first != start.Format("2006-01-02 15:04:05") || !strings.HasPrefix(last, "2026-01-01 00:1") {
		t.Errorf("kept dumps span %s to %s, want the whole log (00:00:00 to about 00:16:39)", first, last)
	}
	var b strings.Builder
	if err := WriteText(&b, s, "en"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), fmt.Sprintf("%d distinct dumps read; %d kept, one every %d", n, len(s.Dumps), s.Thinned.Every)) {
		t.Errorf("text does not say the set was thinned:\n%.400s", b.String())
	}
}

// The same dump many times is listed a bounded number of times and counted.
func TestReadSetCountsManyDuplicates(t *testing.T) {
	body := "2026-01-01 00:00:00\n" + dumpBody(t) + "\n"
	in := []Input{{Name: "same.log", R: strings.NewReader(strings.Repeat(body, 300))}}
	s := ReadSet(in)
	if len(s.Dumps) != 1 || len(s.Duplicates) != maxDuplicatesListed || s.DuplicatesMore != 299-maxDuplicatesListed {
		t.Fatalf("%d dumps, %d duplicates listed, %d more", len(s.Dumps), len(s.Duplicates), s.DuplicatesMore)
	}
}

// A stop while the dumps stream in ends the read there: the set returns at
// once, without analysing what it read (the fingerprinting took no
// context: 9.7 s after SIGTERM on a 1.2 GB file).
func TestReadSetStopsOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &dumpStream{body: dumpBody(t), n: 1 << 30, k: 50, onK: cancel, start: time.Now()}
	done := make(chan *Set)
	go func() { done <- ReadSetContext(ctx, []Input{{Name: "endless.log", R: st}}) }()
	select {
	case s := <-done:
		if st.i > 60 || len(s.Findings) != 0 {
			t.Errorf("read %d dumps after the stop at 50, %d findings", st.i, len(s.Findings))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ReadSetContext did not stop")
	}
}

// A JSON dump lists every virtual thread: past maxJSONThreads they are
// counted, not kept (7.5 million threads in 1.2 GB were kept whole).
func TestParseJSONBoundsThreads(t *testing.T) {
	pr, pw := io.Pipe()
	const n = maxJSONThreads + 5000
	go func() {
		bw := bufio.NewWriter(pw)
		bw.WriteString(`{"threadDump": {"processId": "1", "time": "2026-11-28T07:00:00Z", "runtimeVersion": "25", "threadContainers": [{"container": "<root>", "threads": [`)
		for i := 0; i < n; i++ {
			if i > 0 {
				bw.WriteString(",")
			}
			fmt.Fprintf(bw, `{"tid": "%d", "name": "v", "state": "RUNNABLE", "stack": ["a.B.c(B.java:1)"]}`, i)
		}
		bw.WriteString(`]}]}}`)
		bw.Flush()
		pw.Close()
	}()
	d, err := ParseJSON(pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Threads) != maxJSONThreads || d.Dropped != n-maxJSONThreads || !strings.Contains(d.DroppedWhy.EN, "more than") {
		t.Fatalf("%d threads kept, %d dropped (%q)", len(d.Threads), d.Dropped, d.DroppedWhy.EN)
	}
}

// One text dump of more threads than maxTextThreads keeps the bound and
// counts the rest (one 1.2 GB dump of 4.5 million threads was kept whole).
func TestParseTextBoundsThreads(t *testing.T) {
	pr, pw := io.Pipe()
	const n = maxTextThreads + 500
	go func() {
		bw := bufio.NewWriter(pw)
		bw.WriteString("2026-11-28 07:00:00\nFull thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode):\n\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(bw, "\"w-%d\" #%d prio=5 os_prio=0 tid=0x%x nid=0x%x runnable\n   java.lang.Thread.State: RUNNABLE\n\tat a.B.c(B.java:1)\n\n", i, i+1, i+1, i+1)
		}
		bw.WriteString("JNI global refs: 1, weak refs: 0\n")
		bw.Flush()
		pw.Close()
	}()
	ds, err := ParseText(pr)
	if err != nil || len(ds) != 1 {
		t.Fatalf("%d dumps, %v", len(ds), err)
	}
	d := ds[0]
	if len(d.Threads) != maxTextThreads || d.Dropped != n-maxTextThreads || d.Threads[len(d.Threads)-1].Name != fmt.Sprintf("w-%d", maxTextThreads-1) ||
		len(d.Threads[0].Frames) != 1 {
		t.Fatalf("%d threads kept, %d dropped (%q)", len(d.Threads), d.Dropped, d.DroppedWhy.EN)
	}
}
