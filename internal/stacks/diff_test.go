package stacks

import (
	"math"
	"testing"
)

func prof(kind Kind, samples ...Sample) *Profile {
	p := &Profile{Kind: kind, Unit: "samples"}
	for _, s := range samples {
		p.Samples = append(p.Samples, s)
		p.Total += s.Value
		p.Events++
	}
	return p
}

func st(v int64, frames ...string) Sample { return Sample{Stack: frames, Value: v} }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The after side calls scoreA twice as often per request, parse as
// often, and a new cache lookup appears while the old regex is gone.
func TestDiffPerRequest(t *testing.T) {
	before := prof(CPU, st(100, "main", "handle", "scoreA"), st(100, "main", "handle", "parse"), st(50, "main", "handle", "regex"))
	after := prof(CPU, st(400, "main", "handle", "scoreA"), st(200, "main", "handle", "parse"), st(30, "main", "handle", "cache"))
	// after served twice the requests: per request, scoreA doubled, parse stayed.
	d, err := NewDiff(before, after, 1000, 2000, 10)
	if err != nil {
		t.Fatal(err)
	}
	if d.Norm != PerRequest || d.BeforeDenom != 1000 || d.AfterDenom != 2000 {
		t.Fatalf("norm %s %v/%v, want per request 1000/2000", d.Norm, d.BeforeDenom, d.AfterDenom)
	}
	if len(d.Grew) == 0 || d.Grew[0].Frame != "scoreA" || !near(d.Grew[0].Before, 0.1) || !near(d.Grew[0].After, 0.2) || !near(d.Grew[0].Delta, 0.1) {
		t.Fatalf("grew = %+v, want scoreA 0.1 -> 0.2 first", d.Grew)
	}
	if len(d.Grew) != 2 || d.Grew[1].Frame != "cache" || !d.Grew[1].New || d.Grew[1].Gone {
		t.Errorf("grew = %+v, want cache second and new", d.Grew)
	}
	if len(d.Shrank) != 1 || d.Shrank[0].Frame != "regex" || !d.Shrank[0].Gone || !near(d.Shrank[0].Delta, -0.05) {
		t.Errorf("shrank = %+v, want regex gone, -0.05 per request", d.Shrank)
	}
	for _, fd := range append(d.Grew, d.Shrank...) {
		if fd.Frame == "parse" {
			t.Errorf("parse did not change per request but is listed: %+v", fd)
		}
	}
	// The tree holds both sides, normalised, inclusive.
	root := d.Root
	if !near(root.Before, 0.25) || !near(root.After, 0.315) || len(root.Children) != 1 {
		t.Fatalf("root %+v", root)
	}
	h := root.Children[0].Children[0]
	if h.Name != "handle" || len(h.Children) != 4 {
		t.Fatalf("handle %+v", h)
	}
}

// Raw files carry no request count: each side is a share of its own total.
func TestDiffPerTotal(t *testing.T) {
	before := prof(CPU, st(10, "main", "a"), st(30, "main", "b"))
	after := prof(CPU, st(100, "main", "a"), st(100, "main", "b"))
	d, err := NewDiff(before, after, 0, 500, 10)
	if err != nil {
		t.Fatal(err)
	}
	if d.Norm != PerTotal || d.BeforeDenom != 40 || d.AfterDenom != 200 {
		t.Fatalf("norm %s %v/%v, want per total 40/200", d.Norm, d.BeforeDenom, d.AfterDenom)
	}
	if len(d.Grew) != 1 || d.Grew[0].Frame != "a" || !near(d.Grew[0].Before, 0.25) || !near(d.Grew[0].After, 0.5) {
		t.Errorf("grew %+v, want a 25%% -> 50%%", d.Grew)
	}
	if len(d.Shrank) != 1 || d.Shrank[0].Frame != "b" || !near(d.Shrank[0].Delta, -0.25) {
		t.Errorf("shrank %+v, want b -25 points", d.Shrank)
	}
	if !near(d.Root.Before, 1) || !near(d.Root.After, 1) {
		t.Errorf("root %v/%v, want 1/1", d.Root.Before, d.Root.After)
	}
}

// async-profiler's thread ids change every run: the same thread name is
// the same frame on both sides.
func TestDiffThreadFramesMatchAcrossRuns(t *testing.T) {
	before := prof(CPU, st(10, "[worker-1 tid=100]", "run"))
	after := prof(CPU, st(10, "[worker-1 tid=200]", "run"))
	d, err := NewDiff(before, after, 0, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Root.Children) != 1 || d.Root.Children[0].Name != "[worker-1]" || len(d.Grew)+len(d.Shrank) != 0 {
		t.Errorf("children %+v grew %v shrank %v", d.Root.Children, d.Grew, d.Shrank)
	}
}

// A JFR profile (no thread frames) against async-profiler's -t output:
// the thread frames go, the same methods meet.
func TestDiffThreadRootsOnOneSide(t *testing.T) {
	before := prof(CPU, st(10, "java.lang.Thread.run", "app.A"))
	after := prof(CPU, st(10, "[worker-1 tid=7]", "java.lang.Thread.run", "app.A"), st(10, "[worker-2 tid=8]", "java.lang.Thread.run", "app.B"))
	d, err := NewDiff(before, after, 0, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Root.Children) != 1 || d.Root.Children[0].Name != "java.lang.Thread.run" {
		t.Fatalf("root children %+v", d.Root.Children)
	}
	if len(d.Grew) != 1 || d.Grew[0].Frame != "app.B" || !d.Grew[0].New || len(d.Shrank) != 1 || d.Shrank[0].Frame != "app.A" || d.Shrank[0].Gone {
		t.Errorf("grew %+v shrank %+v", d.Grew, d.Shrank)
	}
}

func TestDiffRefusesDifferentKinds(t *testing.T) {
	if _, err := NewDiff(prof(CPU, st(1, "a")), prof(Lock, st(1, "a")), 0, 0, 10); err == nil {
		t.Error("a cpu and a lock profile compared")
	}
}

func BenchmarkNewDiff(b *testing.B) {
	var before, after []Sample
	for i := 0; i < 2000; i++ {
		st := []string{"java.lang.Thread.run", "app.Handler.handle", "app.Svc.m" + string(rune('a'+i%26)), "leaf" + string(rune('a'+i%7))}
		before = append(before, Sample{Stack: st, Value: int64(i%13 + 1)})
		after = append(after, Sample{Stack: st, Value: int64(i%11 + 1)})
	}
	bp, ap := prof(CPU, before...), prof(CPU, after...)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := NewDiff(bp, ap, 1000, 1200, 10); err != nil {
			b.Fatal(err)
		}
	}
}
