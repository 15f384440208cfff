package threaddump

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// A JSON dump of a real JDK 25 cut short anywhere keeps exactly the threads
// written whole before the cut, and says where it was cut; cut before its
// first whole thread it is refused. Each thread object opens with "tid"
// (the JDK writes it first), so the threads whole before a cut are those
// whose next thread's "tid" lies before it.
func TestJSONCutShort(t *testing.T) {
	for _, name := range []string{"jdk25_contention_threaddump.json", "jdk25_virtual_threaddump.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := Parse(name, bytes.NewReader(b))
		if err != nil || len(whole) != 1 || !whole[0].Truncated.IsZero() {
			t.Fatalf("%s: whole dump: %v %v", name, err, whole)
		}
		all := whole[0].Threads
		var tids []int // where each thread's "tid" key starts
		for i := 0; ; {
			j := bytes.Index(b[i:], []byte(`"tid"`))
			if j < 0 {
				break
			}
			tids = append(tids, i+j)
			i += j + 1
		}
		if len(tids) != len(all) {
			t.Fatalf("%s: %d tid keys, %d threads", name, len(tids), len(all))
		}
		// closes[i] is where thread i's object ends: the brace matching the
		// one before its "tid", found by counting braces outside strings.
		closes := make([]int, len(tids))
		for i, tid := range tids {
			depth, in := 0, false
			for j := bytes.LastIndexByte(b[:tid], '{'); j < len(b); j++ {
				c := b[j]
				switch {
				case in && c == '\\':
					j++
				case c == '"':
					in = !in
				case !in && c == '{':
					depth++
				case !in && c == '}':
					depth--
				}
				if depth == 0 {
					closes[i] = j
					break
				}
			}
		}
		// wholeBefore is the oracle: the threads that end before off.
		wholeBefore := func(off int) int {
			n := 0
			for i, c := range closes {
				if c < off {
					n = i + 1
				}
			}
			return n
		}
		lastEnd := closes[len(closes)-1]
		offsets := []int{1, 40, tids[0] + 3}
		for k := 1; k < len(tids); k += max(1, len(tids)/6) {
			offsets = append(offsets, tids[k]-1, tids[k]+7, (tids[k]+tids[k-1])/2)
		}
		offsets = append(offsets, lastEnd, lastEnd+1, lastEnd+20, len(b)-3)
		for _, off := range offsets {
			ds, err := Parse(name, bytes.NewReader(b[:off]))
			want := wholeBefore(off)
			if want == 0 {
				if err == nil || !errors.Is(err, ErrNotThreadDump) || !strings.HasPrefix(err.Error(), name+": ") {
					t.Errorf("%s cut at byte %d (no whole thread): %v, want refused", name, off, err)
				}
				continue
			}
			if err != nil || len(ds) != 1 {
				t.Errorf("%s cut at byte %d: %v, %d dumps", name, off, err, len(ds))
				continue
			}
			d := ds[0]
			if len(d.Threads) != want {
				t.Errorf("%s cut at byte %d: %d threads, want %d", name, off, len(d.Threads), want)
				continue
			}
			for i, th := range d.Threads {
				if th.Name != all[i].Name || th.ID != all[i].ID || len(th.Frames) != len(all[i].Frames) || th.State != all[i].State {
					t.Errorf("%s cut at byte %d: thread %d %q is not the whole dump's %q", name, off, i, th.Name, all[i].Name)
				}
			}
			last := d.Threads[len(d.Threads)-1].Name
			if !strings.Contains(d.Truncated.EN, "cut short at byte") || !strings.Contains(d.Truncated.EN, fmt.Sprintf("%d threads read whole, up to %q", want, last)) ||
				!strings.Contains(d.Truncated.ZH, "截断") {
				t.Errorf("%s cut at byte %d: Truncated %q / %q", name, off, d.Truncated.EN, d.Truncated.ZH)
			}
			// The analysis runs on what was read.
			if r := Analyze(d); r == nil {
				t.Errorf("%s cut at byte %d: no report", name, off)
			}
		}
	}
}

// A reader that fails mid-dump (not a cut: an I/O error) keeps the threads
// before it and returns the error, naming the file, as the text reader does.
func TestJSONReadError(t *testing.T) {
	b, err := os.ReadFile("testdata/jdk25_contention_threaddump.json")
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("input/output error")
	r := io.MultiReader(bytes.NewReader(b[:len(b)/2]), iotestErr{boom})
	var got []*Dump
	err = ParseFunc("d.json", r, func(d *Dump) error { got = append(got, d); return nil })
	if err == nil || !errors.Is(err, ErrNotThreadDump) || !strings.Contains(err.Error(), "input/output error") || !strings.HasPrefix(err.Error(), "d.json: ") {
		t.Errorf("error %v", err)
	}
	if len(got) != 1 || len(got[0].Threads) == 0 || !strings.Contains(got[0].Truncated.EN, "reading stopped at byte") {
		t.Fatalf("dumps %v", got)
	}
	// Bad JSON in the middle is not a cut: refused whole.
	i := bytes.Index(b[1000:], []byte(`"tid"`)) + 1000
	bad := append(append([]byte{}, b[:i]...), []byte(`1 2 3`)...)
	if ds, err := Parse("bad.json", bytes.NewReader(bad)); err == nil || len(ds) != 0 {
		t.Errorf("bad JSON: %d dumps, %v", len(ds), err)
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }
