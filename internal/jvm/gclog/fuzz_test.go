package gclog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// seeds adds the first lines of every fixture so the fuzzer starts from real formats.
func seeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*.txt")
	live, _ := filepath.Glob("testdata/live/*.log")
	j9, _ := filepath.Glob("testdata/openj9/*.txt")
	jr, _ := filepath.Glob("testdata/jrockit/*.txt")
	files = append(append(append(files, live...), j9...), jr...)
	for _, p := range files {
		d, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if len(d) > 4096 {
			d = d[:4096]
		}
		f.Add(d)
	}
	f.Add([]byte("[0.1s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 12M->3M(256M) 1.0ms\n"))
	f.Add([]byte("1.0: [GC (Allocation Failure) [PSYoungGen: 1K->0K(2K)] 3K->2K(9K), 0.1 secs]\n"))
}

// FuzzParse: any input, either format via detection; never panics, and the
// summary of what it emits is computable.
func FuzzParse(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewSummariser()
		st, err := Parse(bytes.NewReader(data), "fuzz", s.Add)
		if err == nil {
			s.AddStats(st)
			sm := s.Summary()
			_ = Findings(sm, DefaultThresholds(), "fuzz")
			if sm.PauseP99Ms > sm.PauseMaxMs {
				t.Fatalf("p99 %v > max %v", sm.PauseP99Ms, sm.PauseMaxMs)
			}
		}
	})
}

// FuzzJDK8 drives the JDK 8 parser directly, line by line.
func FuzzJDK8(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		st := &Stats{Name: "fuzz"}
		p := newJDK8Parser(st, func(*Event) {})
		for i, l := range bytes.Split(data, []byte("\n")) {
			p.line(i+1, l)
		}
		p.finish()
	})
}

// FuzzUnified drives the unified-logging parser directly.
func FuzzUnified(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		st := &Stats{Name: "fuzz"}
		p := newUnifiedParser(st, func(*Event) {})
		for i, l := range bytes.Split(data, []byte("\n")) {
			p.line(i+1, l)
		}
		p.finish()
	})
}

// FuzzScanners covers the number, size, transition and time readers.
func FuzzScanners(f *testing.F) {
	for _, s := range []string{"1534K->128K(1664K)", "71.1M(96.0M)->71.2M(103.0M)", "64M(50%)->72M(56%)", "2015-07-13T20:53:00.436+0200", "1,474s", "12.011ms"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		parseNum(b)
		parseSizeKB(b)
		parseTransitionAt(b)
		findTransition(b)
		trailingDuration(b)
		parseISOTime(b)
		regions(b)
		parseStopped(b)
		groupName(b)
		parenGroups(b, func([]byte) {})
		var d decor
		splitDecorators(b, &d)
		d.times()
	})
}

// FuzzSets: two arbitrary files given together, one of them possibly
// gzip-framed; grouping never panics, every file lands in exactly one
// report, and Analyze either joins them or refuses with MixedJVMsError.
func FuzzSets(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b := data[:len(data)/2], data[len(data)/2:]
		src := func(name string, d []byte) Source {
			return Source{Name: name, Open: func() (io.ReadCloser, error) { return maybeGzip(io.NopCloser(bytes.NewReader(d))) }}
		}
		srcs := []Source{src("a.log", a), src("b.log", b)}
		lim := Limits{MaxLineBytes: 4096, MaxBytes: 1 << 20, MaxEvents: 1000}
		if _, err := ParseContext(context.Background(), bytes.NewReader(data), "fuzz", lim, nil); err != nil && !errors.Is(err, ErrNotGCLog) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("unexpected error kind: %v", err)
		}
		rs, err := AnalyzeSets(srcs, DefaultThresholds())
		if err != nil {
			return // not a GC log: named in the error
		}
		files := 0
		for _, r := range rs {
			files += len(r.Summary.Files)
		}
		if files != 2 {
			t.Fatalf("%d files in %d reports", files, len(rs))
		}
		_, err = Analyze(srcs, DefaultThresholds())
		var me *MixedJVMsError
		if (len(rs) > 1) != errors.As(err, &me) {
			t.Fatalf("%d sets but Analyze: %v", len(rs), err)
		}
	})
}

// FuzzOpenJ9 drives the verbose GC XML parser directly, line by line: tags
// split, nested, unclosed or hostile never panic, and a pause is never
// negative nor a heap "after" without its "before".
func FuzzOpenJ9(f *testing.F) {
	seeds(f)
	f.Add([]byte("<verbosegc>\n<exclusive-start timestamp=\"2015-12-31T15:22:46.957\">\n<gc-start type=\"scavenge\">\n<mem-info free=\"1\" total=\"2\">\n<mem type=\"nursery\" free=\"0\" total=\"2\"><mem type=\"survivor\" free=\"0\" total=\"4\"/></mem>\n</mem-info></gc-start>\n<gc-end durationms=\"1\"/>\n<exclusive-end durationms=\"2\"/>\n"))
	f.Add([]byte("<af type=\"nursery\" id=\"1\" timestamp=\"Dec 17 07:12:53 2014\">\n<nursery freebytes=\"5\" totalbytes=\"9\" />\n<gc type=\"scavenger\">\n<time totalms=\"1\" />\n</gc>\n<time totalms=\"2\" />\n</af>\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st := &Stats{Name: "fuzz"}
		p := newOpenJ9Parser(st, func(e *Event) {
			if e.PauseMs < 0 && e.Kind.IsPause() {
				t.Fatalf("negative pause %v", e.PauseMs)
			}
		})
		for i, l := range bytes.Split(data, []byte("\n")) {
			p.line(i+1, l)
		}
		p.finish()
		if p.depth > maxDepth || len(p.carry) > maxTagBytes+len(data) {
			t.Fatalf("unbounded state: depth %d carry %d", p.depth, len(p.carry))
		}
	})
}

// FuzzJRockit drives the JRockit parser directly.
func FuzzJRockit(f *testing.F) {
	seeds(f)
	f.Add([]byte("[INFO ][memory ] [OC#1] 31.727-31.861: OC 270886KB->194351KB (524288KB), 0.134 s, sum of pauses 96.521 ms, longest pause 87.771 ms.\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st := &Stats{Name: "fuzz"}
		p := newJRockitParser(st, func(*Event) {})
		for i, l := range bytes.Split(data, []byte("\n")) {
			p.line(i+1, l)
		}
		p.finish()
	})
}
