package threaddump

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// setOf is a Set of reports already analysed, in the order given.
func setOf(rs []*Report) *Set {
	s := &Set{Reports: rs}
	var names []string
	for _, r := range rs {
		s.Dumps = append(s.Dumps, r.Dump)
		s.Sources = append(s.Sources, r.Dump.Source)
		if !slices.Contains(names, r.Dump.Source) {
			names = append(names, r.Dump.Source)
		}
	}
	s.merge(names)
	return s
}

func fixtureBytes(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixturePath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadSet(t *testing.T) {
	const (
		d1 = "jdk17_zoo_fsync_series/dump1.txt"
		d2 = "jdk17_zoo_fsync_series/dump2.txt"
		d3 = "jdk17_zoo_fsync_series/dump3.txt"
		d4 = "jdk17_zoo_fsync_series/dump4.txt"
	)
	type in struct{ name, fixture string }
	cases := []struct {
		name        string
		inputs      []in
		concat      bool // all fixtures in one input named after the first
		sources     []string
		dups        int
		unreadable  []string
		stuck       bool // a threaddump.stuck finding
		wantFinding string
	}{
		{name: "series given backwards is ordered by time",
			inputs:  []in{{d4, d4}, {d3, d3}, {d2, d2}, {d1, d1}},
			sources: []string{d1, d2, d3, d4}, wantFinding: "threaddump.lock.app"},
		{name: "one dump",
			inputs: []in{{d1, d1}}, sources: []string{d1}, wantFinding: "threaddump.lock.app"},
		{name: "the same file three times is one dump, not stuck threads",
			inputs: []in{{d1, d1}, {d1, d1}, {d1, d1}}, sources: []string{d1}, dups: 2},
		{name: "the same content under another name",
			inputs: []in{{"a.txt", d2}, {"copy-of-a.txt", d2}}, sources: []string{"a.txt"}, dups: 1},
		{name: "a dump pasted twice in one file",
			inputs: []in{{"both.txt", d1}, {"both.txt", d1}}, concat: true, sources: []string{"both.txt"}, dups: 1},
		{name: "duplicates among real dumps still leave a series",
			inputs:  []in{{d1, d1}, {d2, d2}, {d1, d1}, {d3, d3}},
			sources: []string{d1, d2, d3}, dups: 1, wantFinding: "threaddump.lock.app"},
		{name: "an unreadable file is recorded and the others count",
			inputs:  []in{{d1, d1}, {"README.md", "README.md"}, {d2, d2}},
			sources: []string{d1, d2}, unreadable: []string{"README.md"}, wantFinding: "threaddump.lock.app"},
		{name: "nothing readable",
			inputs: []in{{"README.md", "README.md"}}, unreadable: []string{"README.md"}},
		{name: "several dumps per file (SIGQUIT in a log)",
			inputs: []in{{"app.log", "jdk17_sigquit_prefixed.log"}}, sources: []string{"app.log", "app.log"}, stuck: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ins []Input
			if c.concat {
				var all []byte
				for _, i := range c.inputs {
					all = append(all, fixtureBytes(t, i.fixture)...)
				}
				ins = []Input{{Name: c.inputs[0].name, R: bytes.NewReader(all)}}
			} else {
				for _, i := range c.inputs {
					ins = append(ins, Input{Name: i.name, R: bytes.NewReader(fixtureBytes(t, i.fixture))})
				}
			}
			s := ReadSet(ins)
			if !slices.Equal(s.Sources, c.sources) {
				t.Errorf("sources %v, want %v", s.Sources, c.sources)
			}
			if len(s.Dumps) != len(s.Sources) || len(s.Reports) != len(s.Sources) {
				t.Errorf("%d dumps, %d reports, %d sources", len(s.Dumps), len(s.Reports), len(s.Sources))
			}
			if len(s.Duplicates) != c.dups {
				t.Errorf("duplicates %+v, want %d", s.Duplicates, c.dups)
			}
			var bad []string
			for _, u := range s.Unreadable {
				bad = append(bad, u.Name)
				if !errors.Is(u.Err, ErrNotThreadDump) || !strings.Contains(u.Message, u.Name) {
					t.Errorf("unreadable %+v: want ErrNotThreadDump naming the file", u)
				}
			}
			if !slices.Equal(bad, c.unreadable) {
				t.Errorf("unreadable %v, want %v", bad, c.unreadable)
			}
			if (s.Series != nil) != (len(s.Reports) >= 2) {
				t.Errorf("series %v with %d dumps", s.Series != nil, len(s.Reports))
			}
			ids := map[string]int{}
			for _, f := range s.Findings {
				if f.Status == finding.Fail {
					ids[f.ID]++
				}
			}
			if got := ids["threaddump.stuck"] > 0; got != c.stuck {
				t.Errorf("threaddump.stuck reported %v, want %v (%v)", got, c.stuck, ids)
			}
			if c.wantFinding != "" && ids[c.wantFinding] != 1 {
				t.Errorf("%s reported %d times, want once (%v)", c.wantFinding, ids[c.wantFinding], ids)
			}
		})
	}
}

// The text says which inputs were not read and which dumps were copies.
func TestWriteTextSaysDuplicatesAndUnreadable(t *testing.T) {
	d1 := fixtureBytes(t, "jdk17_zoo_fsync_series/dump1.txt")
	s := ReadSet([]Input{{Name: "a.txt", R: bytes.NewReader(d1)}, {Name: "b.txt", R: bytes.NewReader(d1)},
		{Name: "notes\x1b[31m.txt", R: strings.NewReader("hello\n")}})
	for _, c := range []struct {
		lang finding.Lang
		want []string
	}{
		{finding.EN, []string{"Identical dump counted once: b.txt:1 = a.txt:1", `Not read: notes\x1b[31m.txt: not a thread dump`, "== Dump 1 ("}},
		{finding.ZH, []string{"相同的转储只计一次: b.txt:1 = a.txt:1", `未能读取: notes\x1b[31m.txt`, "== 转储 1 ("}},
	} {
		var b bytes.Buffer
		if err := WriteText(&b, s, c.lang); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", c.lang, w, b.String())
			}
		}
		if strings.Contains(b.String(), "\x1b") || strings.Contains(b.String(), "== Dump 2") {
			t.Errorf("%s: raw ESC or a second dump in the output", c.lang)
		}
	}
}
