package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// --max-input cuts a long input: what came before the limit is analysed and
// the input is said to be read in part, exit 0 (it printed the partial
// analysis, then "no input could be read" and exit 1).
func TestAnalyzeMaxInputReadsInPart(t *testing.T) {
	dump, err := os.ReadFile(filepath.Join(dumpsDir, "jdk17_deadlock_jcmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Its own first lines (pid, time) replaced by a time of each copy's.
	if i := bytes.Index(dump, []byte("Full thread dump")); i > 0 {
		dump = dump[i:]
	}
	dir := t.TempDir()
	dumps := filepath.Join(dir, "dumps.log")
	// Three copies with distinct times: two fit in the limit, the third does not.
	var b bytes.Buffer
	for _, ts := range []string{"2026-11-28 07:00:00", "2026-11-28 07:00:10", "2026-11-28 07:00:20"} {
		b.WriteString(ts + "\n")
		b.Write(dump)
		b.WriteString("\n")
	}
	if err := os.WriteFile(dumps, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	limit := 2*(len(dump)+21) + 100
	out, err := runAnalyze(t, []string{dumps}, AnalyzeOptions{MaxInput: strconv.Itoa(limit)})
	if err != nil {
		t.Fatalf("exit %v, want 0 for an input read in part\n%s", err, out)
	}
	if !strings.Contains(out, "Read in part: "+dumps) || !strings.Contains(out, "== Dump 2") || strings.Contains(out, "Not read") {
		t.Errorf("output:\n%.1500s", out)
	}
	gc := filepath.Join("../../internal/jvm/gclog/testdata/corpus", "openjdk_SampleSun1_8_0Series-Part1.txt")
	out, err = runAnalyze(t, []string{gc}, AnalyzeOptions{MaxInput: "8K"})
	if err != nil || !strings.Contains(out, "Read in part: ") || !strings.Contains(out, "GC log: ") || strings.Contains(out, "events 0,") {
		t.Errorf("GC log cut at 8K: %v\n%.800s", err, out)
	}
}

// Profiles too: collapsed stacks up to the limit, and a JFR recording's
// whole chunks before it.
func TestAnalyzeMaxInputProfilesInPart(t *testing.T) {
	dir := t.TempDir()
	col := filepath.Join(dir, "s.collapsed")
	if err := os.WriteFile(col, bytes.Repeat([]byte("a;b;c 1\n"), 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runAnalyze(t, []string{col}, AnalyzeOptions{MaxInput: "8K"})
	if err != nil || !strings.Contains(out, "Read in part: "+col) || !strings.Contains(out, "1024 events") {
		t.Errorf("collapsed cut at 8K: %v\n%.600s", err, out)
	}
	one, err := os.ReadFile("testdata/profiles/mixed.jfr")
	if err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(dir, "two.jfr")
	if err := os.WriteFile(two, append(append([]byte(nil), one...), one...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runAnalyze(t, []string{two}, AnalyzeOptions{MaxInput: strconv.Itoa(len(one) + len(one)/2)})
	if err != nil || !strings.Contains(out, "Read in part: "+two) || strings.Contains(out, "Not read") {
		t.Errorf("JFR cut in its second chunk: %v\n%.600s", err, out)
	}
}
