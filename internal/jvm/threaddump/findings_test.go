package threaddump

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func both(t *testing.T, what string, x finding.Text) {
	t.Helper()
	if strings.TrimSpace(x.EN) == "" || strings.TrimSpace(x.ZH) == "" {
		t.Errorf("%s: text missing a language: %+v", what, x)
	}
}

func TestFingerprintTable(t *testing.T) {
	seen := map[string]bool{}
	all := append(append([]*Fingerprint{}, Fingerprints...), fpSocketRead, fpAppLock)
	for _, fp := range all {
		if seen[fp.ID] {
			t.Errorf("duplicate fingerprint %s", fp.ID)
		}
		seen[fp.ID] = true
		both(t, fp.ID+" title", fp.Title)
		both(t, fp.ID+" why", fp.Why)
		both(t, fp.ID+" recommended", fp.Recommended)
		both(t, fp.ID+" risk", fp.Risk)
		if (fp.Apply == "") != (fp.Revert == "") {
			t.Errorf("%s: Apply and Revert must come together", fp.ID)
		}
		if fp.MinThreads < 2 {
			t.Errorf("%s: MinThreads %d", fp.ID, fp.MinThreads)
		}
		if fp.Library == "" {
			t.Errorf("%s: no library", fp.ID)
		}
	}
	for _, fp := range Fingerprints {
		if len(fp.Frames) == 0 && len(fp.LockClasses) == 0 {
			t.Errorf("%s matches nothing", fp.ID)
		}
	}
}

// The logging fixes speak the libraries' own configuration words.
func TestFixWording(t *testing.T) {
	want := map[string][]string{
		"lock.log4j1-category":     {"ImmediateFlush=false", "BufferedIO=true", "BufferSize"},
		"lock.logback-appender":    {"AsyncAppender", "queueSize", "neverBlock", "immediateFlush"},
		"queue.logback-async-full": {"neverBlock", "queueSize", "discardingThreshold"},
		"lock.log4j2-manager":      {"immediateFlush", "bufferedIO", "bufferSize"},
		"jdbc-pool.druid":          {"maxActive", "maxWait"},
		"jdbc-pool.hikaricp":       {"maximumPoolSize"},
	}
	for _, fp := range Fingerprints {
		for _, w := range want[fp.ID] {
			if !strings.Contains(fp.Recommended.EN+fp.Apply, w) {
				t.Errorf("%s: fix does not say %q", fp.ID, w)
			}
		}
	}
	for _, id := range []string{"lock.log4j1-category", "lock.logback-appender", "lock.log4j2-manager"} {
		for _, fp := range Fingerprints {
			if fp.ID == id && !strings.Contains(fp.Risk.EN, "lost") {
				t.Errorf("%s: risk does not mention log loss", id)
			}
		}
	}
}

func TestFindingsComplete(t *testing.T) {
	files := []string{"jdk17_logbacklike_jcmd.txt", "jdk25_deadlock_jcmd.txt", "jdk25_contention_jcmd.txt", "jdk17_log4j1like_jcmd.txt", "jdk17_sigquit_prefixed.log"}
	ids := map[string]bool{}
	for _, file := range files {
		for _, d := range parseFixture(t, file) {
			for _, f := range Findings(Analyze(d), file) {
				ids[f.ID] = true
				if f.Category != Category || f.Status == "" {
					t.Errorf("%s: %s category %q status %q", file, f.ID, f.Category, f.Status)
				}
				both(t, f.ID+" title", f.Title)
				both(t, f.ID+" observed", f.Observed)
				both(t, f.ID+" why", f.Why)
				both(t, f.ID+" recommended", f.Recommended)
				both(t, f.ID+" risk", f.Risk)
				if len(f.Evidence) == 0 {
					t.Errorf("%s: no evidence", f.ID)
				}
				for _, e := range f.Evidence {
					if e.Source == "" {
						t.Errorf("%s: evidence %s without source", f.ID, e.Key)
					}
				}
			}
		}
	}
	for _, id := range []string{"threaddump.deadlock", "threaddump.blocked-share", "threaddump.lock.logback-appender", "threaddump.lock.log4j1-category", "threaddump.lock.app", "threaddump.lock.sync-collection"} {
		if !ids[id] {
			t.Errorf("no finding %s", id)
		}
	}
	// The deadlock evidence names the threads and the lock addresses.
	for _, f := range Findings(Analyze(parseFixture(t, "jdk25_deadlock_jcmd.txt")[0]), "d.txt") {
		if f.ID == "threaddump.deadlock" && strings.Contains(f.Subject, "transfer") {
			v := f.Evidence[0].Value
			if !strings.Contains(v, `"transfer-1" waits for <0x000000069d8f6238>`) || !strings.Contains(v, `held by "transfer-2"`) {
				t.Errorf("evidence %q", v)
			}
		}
	}
}

func TestBlockedShareSeverity(t *testing.T) {
	r := &Report{Java: 100, Active: 80, Idle: 20, Blocked: 40, Waiting: 10, BlockedWaitingShare: 50.0 / 80}
	f := shareFinding(r, "x")
	if f.Status != finding.Fail || f.Severity != finding.Critical {
		t.Errorf("%s %s", f.Status, f.Severity)
	}
	if !strings.Contains(f.Observed.EN, "62.50%") {
		t.Errorf("observed %q", f.Observed.EN)
	}
	r = &Report{Java: 100, Active: 80, Idle: 20, Blocked: 1, Waiting: 10, BlockedWaitingShare: 11.0 / 80}
	if f := shareFinding(r, "x"); f.Status != finding.Pass {
		t.Errorf("low share: %s", f.Status)
	}
}

func TestNoOwnableFinding(t *testing.T) {
	src := synth(5, "w-", "WAITING (parking)", "\tat jdk.internal.misc.Unsafe.park(Native Method)\n\t- parking to wait for  <0x00000000d1> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)\n\tat java.util.concurrent.locks.ReentrantLock.lock(ReentrantLock.java:322)\n\tat com.example.Cache.put(Cache.java:9)\n")
	ds, err := Parse("x", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range Findings(Analyze(ds[0]), "x") {
		if f.ID == "threaddump.no-ownable" {
			found = true
		}
		if f.ID == "threaddump.lock.app" && !strings.Contains(f.Observed.EN, "without -l") {
			t.Errorf("app lock observed %q", f.Observed.EN)
		}
	}
	if !found {
		t.Errorf("no threaddump.no-ownable")
	}
}

func TestWriteText(t *testing.T) {
	ds := parseFixture(t, "jdk17_sigquit_prefixed.log")
	var rs []*Report
	for _, d := range ds {
		rs = append(rs, Analyze(d))
	}
	for _, lang := range []finding.Lang{finding.EN, finding.ZH} {
		var b bytes.Buffer
		if err := WriteText(&b, setOf(rs), lang); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"http-nio-8080-exec-N", "threaddump.lock.app", "threaddump.stuck", `"line1 line2 "fake" #99 prio=5"`, "0x"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q", lang, want)
			}
		}
		if lang == finding.ZH && !strings.Contains(out, "阻塞或等待") {
			t.Errorf("zh output not in Chinese")
		}
		if strings.Contains(out, "line1\nline2") {
			t.Errorf("%s: raw newline from a thread name in the output", lang)
		}
	}
}

// Two real dumps of the zoo's fsync-io service a second apart: in the later
// one the journal lock's new owner is still BLOCKED, taken in the instant of
// the handoff. Over both dumps the finding must come from the dump where the
// holder is in the fsync, whatever the order, and say both dumps show it.
func TestFindingsOverPrefersTheDumpThatShowsTheHolderWorking(t *testing.T) {
	working := Analyze(parseFixture(t, "jdk17_zoo_fsync_jcmd.txt")[0])
	entering := Analyze(parseFixture(t, "jdk17_zoo_fsync_holder_entering_jcmd.txt")[0])

	var alone finding.Finding
	for _, f := range Findings(entering, "entering.txt") {
		if f.ID == "threaddump.lock.app" {
			alone = f
		}
	}
	if !strings.Contains(alone.Observed.EN, "BLOCKED") || !strings.Contains(alone.Observed.EN, "caught in the instant it took the lock") ||
		!strings.Contains(alone.Observed.ZH, "刚拿到锁") {
		t.Errorf("one dump: the just-entered holder is not explained:\n%s\n%s", alone.Observed.EN, alone.Observed.ZH)
	}

	for _, order := range [][]*Report{{working, entering}, {entering, working}} {
		fs := FindingsOver(order, []string{"a.txt", "b.txt"})
		var got *finding.Finding
		n := 0
		for i := range fs {
			if fs[i].ID == "threaddump.lock.app" {
				got = &fs[i]
				n++
			}
		}
		if n != 1 {
			t.Fatalf("the journal lock is reported %d times over two dumps", n)
		}
		if !strings.Contains(got.Observed.EN, "FileDispatcherImpl.force0") || strings.Contains(got.Observed.EN, "caught in the instant") {
			t.Errorf("holder not shown in the fsync:\n%s", got.Observed.EN)
		}
		if !strings.Contains(got.Observed.EN, "(in 2 of 2 dumps)") || !strings.Contains(got.Observed.ZH, "2 次转储中出现 2 次") {
			t.Errorf("dump count missing:\n%s\n%s", got.Observed.EN, got.Observed.ZH)
		}
	}
	// A lock seen in one dump of three is a moment, not the state: lower confidence.
	fs := FindingsOver([]*Report{working, Analyze(parseFixture(t, "jdk17_deadlock_jcmd.txt")[0]), Analyze(parseFixture(t, "jdk17_deadlock_jcmd.txt")[0])}, []string{"a", "b", "c"})
	seen := map[string]int{}
	for _, f := range fs {
		seen[f.ID]++
		if f.ID == "threaddump.lock.app" && (!strings.Contains(f.Observed.EN, "(in 1 of 3 dumps)") || f.Confidence >= 0.8) {
			t.Errorf("a one-off lock: %s, confidence %.2f", f.Observed.EN, f.Confidence)
		}
		if f.ID == "threaddump.deadlock" && !strings.Contains(f.Observed.EN, "(in 2 of 3 dumps)") {
			t.Errorf("deadlock: %s", f.Observed.EN)
		}
	}
	if seen["threaddump.lock.app"] != 1 || seen["threaddump.deadlock"] != 2 {
		t.Errorf("findings over three dumps: %v", seen)
	}
}
