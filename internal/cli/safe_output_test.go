package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// evilText holds every C0 control but NUL and newline (a thread dump holds
// neither in a name), DEL, every C1 control as UTF-8 and as raw bytes, and
// the escape sequences a terminal acts on (colour, OSC title, CSI as C1).
func evilText(withNUL bool) string {
	var b strings.Builder
	b.WriteString("worker\u0007\u001b[31mRED\u001b]0;pwned\u0007\u009b2J")
	for c := 0; c < 0x20; c++ {
		if (c == 0 && !withNUL) || c == '\n' || c == '"' {
			continue
		}
		b.WriteByte(byte(c))
	}
	b.WriteByte(0x7f)
	for c := rune(0x80); c < 0xa0; c++ {
		b.WriteRune(c)
		b.WriteByte(byte(c)) // invalid UTF-8 on its own
	}
	b.WriteString("-end")
	return b.String()
}

// badRunes lists the control characters in out other than \n and \t.
func badRunes(out string) []rune {
	var bad []rune
	for _, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			bad = append(bad, r)
		}
	}
	return bad
}

func assertNoControls(t *testing.T, what, out string) {
	t.Helper()
	if out == "" {
		t.Errorf("%s: no output", what)
	}
	if !utf8.ValidString(out) {
		t.Errorf("%s: invalid UTF-8 reaches stdout", what)
	}
	if bad := badRunes(out); len(bad) > 0 {
		t.Errorf("%s: %d control characters reach stdout, first %U:\n%q", what, len(bad), bad[0], out)
	}
}

// A thread named with every control character and a run whose manifest is
// full of them: analyze (text, json, markdown for the run) and runs print
// nothing a terminal would act on.
func TestTargetTextNeverReachesTheTerminalRaw(t *testing.T) {
	tmp := t.TempDir()
	evil := evilText(false)
	dump, err := os.ReadFile(filepath.Join(dumpsDir, "jdk17_deadlock_jcmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The deadlocked thread carries the name: it is in the finding's key,
	// its evidence and the dump's tables.
	evilDump := bytes.ReplaceAll(dump, []byte(`"transfer-1"`), []byte(`"`+evil+`"`))
	dumpPath := filepath.Join(tmp, "evil\x1b[2Jdump.txt")
	if err := os.WriteFile(dumpPath, evilDump, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"text", "json"} {
		out, err := runAnalyze(t, []string{dumpPath}, AnalyzeOptions{Output: o})
		if err != nil {
			t.Fatalf("analyze -o %s: %v", o, err)
		}
		if o == "text" && !strings.Contains(out, `worker\x07\x1b[31mRED`) {
			t.Errorf("the thread name is not shown escaped:\n%s", out)
		}
		assertNoControls(t, "analyze dump -o "+o, out)
	}

	// A run folder: the fixture with the evil strings in its manifest and
	// the evil dump as its thread dump.
	src := filepath.Join("..", "diagnose", "testdata", "runs", "kunpeng-softirq")
	dir := filepath.Join(tmp, "run")
	for _, p := range []string{"manifest.json", "findings.json", "raw/samples.jsonl.gz"} {
		b, err := os.ReadFile(filepath.Join(src, p))
		if err != nil {
			t.Fatal(err)
		}
		if p == "manifest.json" {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			full := evilText(true) + "\nline2"
			m["id"], m["host"], m["reason"] = full, full, full
			m["argv"] = []string{"tuneloop", "record", full}
			m["target"] = map[string]any{"pid": 4242, "comm": full, "how": "pid"}
			if b, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "raw", "threaddump-1.txt"), evilDump, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"text", "json", "markdown"} {
		out, err := runAnalyze(t, []string{dir}, AnalyzeOptions{Output: o})
		if err != nil {
			t.Fatalf("analyze RUN_DIR -o %s: %v", o, err)
		}
		if o == "text" && !strings.Contains(out, `worker\x07\x1b[31mRED`) {
			t.Errorf("analyze RUN_DIR: the manifest id is not shown escaped:\n%s", out)
		}
		assertNoControls(t, "analyze RUN_DIR -o "+o, out)
	}

	db := filepath.Join(tmp, "cat.db")
	env, out, _ := testEnv()
	if err := RunRunsAdd(context.Background(), env, db, []string{dir}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"text", "json"} {
		out.Reset()
		if err := RunRuns(context.Background(), env, &RunsOptions{Catalog: db, Output: o}); err != nil {
			t.Fatalf("runs -o %s: %v", o, err)
		}
		assertNoControls(t, "runs -o "+o, out.String())
	}
}
