package session

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

func TestRepeatInterleaves(t *testing.T) {
	out := t.TempDir()
	var got []string
	dir, err := Repeat(context.Background(), RepeatOptions{N: 2, Out: out, Arms: []string{"a", "b"}}, func(_ context.Context, arm, d string) error {
		rel, _ := filepath.Rel(out, d)
		got = append(got, rel)
		return nil
	})
	want := []string{"a/run-1", "b/run-1", "a/run-2", "b/run-2"}
	if err != nil || dir != out || !slices.Equal(got, want) {
		t.Errorf("%v %s %v, want ABAB %v", err, dir, got, want)
	}
	// One arm: out/run-1..N; the first error stops it, naming the run.
	got = nil
	_, err = Repeat(context.Background(), RepeatOptions{N: 3, Out: out}, func(_ context.Context, _, d string) error {
		got = append(got, filepath.Base(d))
		if len(got) == 2 {
			return errors.New("target down")
		}
		return nil
	})
	if err == nil || !slices.Equal(got, []string{"run-1", "run-2"}) || filepath.Base(filepath.Dir(out)) == "" {
		t.Errorf("%v %v", err, got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Repeat(ctx, RepeatOptions{N: 3, Out: out}, func(context.Context, string, string) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// A/B: each variant's own start command and target, a1 b1 a2 b2 ... into
// out/a and out/b.
func TestRepeatAB(t *testing.T) {
	out := t.TempDir()
	var got []string
	a, b := Variant{Start: "java -jar app.jar", Target: "http://127.0.0.1:1/"}, Variant{Start: "java -jar app.jar --fixed", Target: "http://127.0.0.1:1/"}
	da, db, err := RepeatAB(context.Background(), RepeatOptions{N: 2, Out: out}, a, b, func(_ context.Context, v Variant, d string) error {
		rel, _ := filepath.Rel(out, d)
		got = append(got, rel+" "+v.Start)
		return nil
	})
	want := []string{"a/run-1 java -jar app.jar", "b/run-1 java -jar app.jar --fixed", "a/run-2 java -jar app.jar", "b/run-2 java -jar app.jar --fixed"}
	if err != nil || da != filepath.Join(out, "a") || db != filepath.Join(out, "b") || !slices.Equal(got, want) {
		t.Errorf("%v %s %s %q", err, da, db, got)
	}
}
