package gclog

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The time span of a unified log's time decorator, read independently.
func wallSpan(t *testing.T, path string) (first, last time.Time) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "[20") {
			continue
		}
		w, err := time.Parse("2006-01-02T15:04:05.000-0700", l[1:strings.IndexByte(l, ']')])
		if err != nil {
			continue
		}
		if first.IsZero() {
			first = w
		}
		last = w
	}
	return first, last
}

// A failing throughput or pause finding on a dated log says when: the worst
// 60 s window, the longest pause. A run's charts shade the verdict's window.
func TestGCFindingWindows(t *testing.T) {
	th := DefaultThresholds()
	th.PauseRatioCritPct, th.PauseRatioWarnPct, th.P99CritMs = 0, 0, 0 // make both fail
	for _, name := range []string{"jdk25-parallel-12s.log", "jdk17-g1-12s.log"} {
		path := filepath.Join("testdata", "live", name)
		r, err := Analyze(FileSources(path), th)
		if err != nil {
			t.Fatal(err)
		}
		first, last := wallSpan(t, path)
		got := map[string]bool{}
		for _, f := range r.Findings {
			if f.ID != "gc.throughput-low" && f.ID != "gc.long-pause" {
				continue
			}
			w := f.Window
			if w == nil {
				t.Errorf("%s %s: no window", name, f.ID)
				continue
			}
			got[f.ID] = true
			if w.To.Before(w.From) || w.To.After(last.Add(time.Second)) || w.From.Before(first.Add(-60*time.Second)) {
				t.Errorf("%s %s: window %v-%v outside the log's %v-%v", name, f.ID, w.From, w.To, first, last)
			}
			if f.ID == "gc.long-pause" {
				if d := w.To.Sub(w.From); d != time.Duration(r.Summary.PauseMaxMs*float64(time.Millisecond)) {
					t.Errorf("%s: the longest pause's window lasts %v, the pause %.3f ms", name, d, r.Summary.PauseMaxMs)
				}
			}
		}
		if !got["gc.throughput-low"] || !got["gc.long-pause"] {
			t.Errorf("%s: windows on %v", name, got)
		}
	}
	// Uptime only: no wall clock, no window.
	r, err := Analyze(FileSources(filepath.Join("testdata", "live", "jdk17-g1.log")), th)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if f.Window != nil {
			t.Errorf("jdk17-g1.log (uptime only) %s has a window", f.ID)
		}
	}
}
