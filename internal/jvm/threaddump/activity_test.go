package threaddump

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// What the holder of each contended application lock does, on real dumps.
func TestHolderActivityOnRealDumps(t *testing.T) {
	cases := []struct {
		fixture, lockClass string
		want               Activity
	}{
		{"jdk17_iounderlock_jcmd.txt", "IOUnderLock$Journal", ActFileWrite},      // FileChannel.write -> FileDispatcherImpl.write0
		{"jdk25_iounderlock_jcmd.txt", "IOUnderLock$Journal", ActFileWrite},      // UnixFileDispatcherImpl.write0
		{"jdk17_iounderlock_jcmd.txt", "IOUnderLock$AuditLog", ActFileWrite},     // FileOutputStream.writeBytes
		{"jdk25_iounderlock_jcmd.txt", "IOUnderLock$AuditLog", ActFileWrite},     //
		{"jdk17_iounderlock_jcmd.txt", "IOUnderLock$PriceClient", ActSocketRead}, // NioSocketImpl -> SocketDispatcher.read0
		{"jdk25_iounderlock_jcmd.txt", "IOUnderLock$PriceClient", ActSocketRead},
		{"jdk17_zoo_fsync_jcmd.txt", "com.example.zoo.Journal", ActFsync},
		{"jdk17_contention_jcmd.txt", "java.lang.Object", ActSleep},
		{"jdk25_contention_jcmd.txt", "java.lang.Object", ActSleep},
		{"tda_urlthread.log", "org.archive.crawler.postprocessor.FrontierScheduler", ActFileIO}, // RandomAccessFile.seek
		// caught in the monitor handoff: nothing to say about what it does inside
		{"jdk17_zoo_fsync_holder_entering_jcmd.txt", "com.example.zoo.Journal", ActNone},
	}
	for _, c := range cases {
		r := Analyze(parseFixture(t, c.fixture)[0])
		var got *Culprit
		for _, cu := range r.Culprits {
			if cu.Lock != nil && cu.Lock.Ref.Class == c.lockClass {
				got = cu
			}
		}
		if got == nil {
			t.Errorf("%s: no culprit on %s", c.fixture, c.lockClass)
			continue
		}
		if got.HolderActivity != c.want {
			t.Errorf("%s %s: holder activity %q, want %q (holder at %s)", c.fixture, c.lockClass, got.HolderActivity, c.want, got.Holder.Top())
		}
		f := culpritFinding(r, got, c.fixture)
		if adv, ok := c.want.lockAdvice(); ok && f.ID == "threaddump.lock.app" && f.Recommended != adv {
			t.Errorf("%s %s: advice %q, want the %s advice", c.fixture, c.lockClass, f.Recommended.EN, c.want)
		}
		if c.want.IO() && !strings.Contains(f.Observed.EN, c.want.Text().EN+" while holding the lock") {
			t.Errorf("%s %s: observed does not say what the holder does: %s", c.fixture, c.lockClass, f.Observed.EN)
		}
	}
}

// JDK 8 to 17 write to sockets through FileDispatcherImpl.write0: the
// frames below decide, not the top one.
func TestActivitySocketWriteThroughFileDispatcher(t *testing.T) {
	d := parseFixture(t, "jdk17_zoo_fsync_series/dump4.txt")[0]
	th := threadByName(d, "http-nio-18431-exec-17")
	if th == nil || th.Top().Method != "sun.nio.ch.FileDispatcherImpl.write0" {
		t.Fatalf("fixture changed: %+v", th)
	}
	if a := ActivityOf(th); a != ActSocketWrite {
		t.Errorf("Tomcat response write: %q, want socket-write", a)
	}
}

func seriesReports(t *testing.T) []*Report {
	var rs []*Report
	for i := 1; i <= 4; i++ {
		rs = append(rs, Analyze(parseFixture(t, fmt.Sprintf("jdk17_zoo_fsync_series/dump%d.txt", i))[0]))
	}
	return rs
}

// Over several dumps the holder's activities are a sample of the critical
// section; the advice follows the I/O seen most.
func TestFindingsOverSamplesTheHolder(t *testing.T) {
	rs := seriesReports(t)
	names := []string{"dump1.txt", "dump2.txt", "dump3.txt", "dump4.txt"}
	var lock *finding.Finding
	for _, f := range FindingsOver(rs, names) {
		if f.ID == "threaddump.lock.app" {
			lock = &f
		}
	}
	if lock == nil {
		t.Fatal("no app lock finding over the series")
	}
	ev := lock.EvidenceValue("holder_activity")
	// Count what the fixture shows, independently of the classifier.
	fsyncs := 0
	for _, r := range rs {
		for _, l := range r.Locks {
			if l.Ref.Class == "com.example.zoo.Journal" && l.Owner != nil && strings.HasSuffix(l.Owner.Top().Method, ".force0") {
				fsyncs++
			}
		}
	}
	if fsyncs == 0 || !strings.Contains(ev, fmt.Sprintf("fsync in %d", fsyncs)) {
		t.Errorf("holder_activity %q, the dumps show the holder in force0 %d times", ev, fsyncs)
	}
	if adv, _ := ActFsync.lockAdvice(); lock.Recommended != adv {
		t.Errorf("advice %q, want group commit", lock.Recommended.EN)
	}
	if !strings.Contains(lock.Observed.ZH, "次转储中持有者：正在把文件刷到磁盘（fsync）") || !strings.Contains(lock.Observed.EN, "the holder over those 4 dumps: flushing a file to disk (fsync) in") {
		t.Errorf("observed: %s / %s", lock.Observed.EN, lock.Observed.ZH)
	}
}

// Workers queued on a lock that changes hands every dump are not stuck; a
// deadlock is.
func TestStuckIgnoresAQueueThatMoves(t *testing.T) {
	if s := NewSeries(seriesReports(t)); len(s.Stuck) != 0 {
		t.Errorf("%d threads stuck behind a lock that changed owner every dump, first %+v", len(s.Stuck), s.Stuck[0])
	}
	dl := Analyze(parseFixture(t, "jdk17_deadlock_jcmd.txt")[0])
	dl2 := Analyze(parseFixture(t, "jdk17_deadlock_jcmd.txt")[0])
	if s := NewSeries([]*Report{dl, dl2}); len(s.Stuck) == 0 {
		t.Error("deadlocked threads not stuck")
	}
}

func TestTimeOrder(t *testing.T) {
	mk := func(src, tm string, line int) *Dump { return &Dump{Source: src, Time: tm, Line: line} }
	cases := []struct {
		ds   []*Dump
		want []int
	}{
		// a shell glob: dump1, dump10, dump2, all in one second
		{[]*Dump{mk("d/dump1.txt", "2026-11-22 03:59:51", 1), mk("d/dump10.txt", "2026-11-22 03:59:51", 1), mk("d/dump2.txt", "2026-11-22 03:59:51", 1)}, []int{0, 2, 1}},
		// time first, whatever the names
		{[]*Dump{mk("b", "2026-11-22 03:59:52", 1), mk("a", "2026-11-22 03:59:51", 1)}, []int{1, 0}},
		// several dumps in one file: by line
		{[]*Dump{mk("x.log", "2026-11-22 03:59:51", 900), mk("x.log", "2026-11-22 03:59:51", 1)}, []int{1, 0}},
		{[]*Dump{mk("a", "2026-11-21T23:57:16.5Z", 1), mk("b", "2026-11-21T23:57:16.016168612Z", 1)}, []int{1, 0}},
		// a dump without a time, or two kinds of time: the order given stands
		{[]*Dump{mk("a", "2026-11-22 03:59:52", 1), mk("b", "", 1)}, nil},
		{[]*Dump{mk("a", "2026-11-22 03:59:52", 1), mk("b", "2026-11-21T23:57:16Z", 1)}, nil},
	}
	for i, c := range cases {
		if got := TimeOrder(c.ds); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("case %d: %v, want %v", i, got, c.want)
		}
	}
}

// Several dumps: each problem is said once, after the dumps.
func TestWriteTextSeveralDumpsSaysEachProblemOnce(t *testing.T) {
	rs := seriesReports(t)
	var b bytes.Buffer
	if err := WriteText(&b, setOf(rs), finding.EN); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "(threaddump.lock.app/"); n != 1 {
		t.Errorf("the journal lock finding appears %d times:\n%s", n, out)
	}
	if i, j := strings.Index(out, "== Across dumps"), strings.Index(out, "(threaddump.lock.app/"); i < 0 || j < i {
		t.Errorf("the finding is not after the dumps")
	}
	if !strings.Contains(out, "jdk17_zoo_fsync_series/dump4.txt:1") {
		t.Errorf("dump headers do not name their file")
	}
}

// A busy consumer shows its hottest frame in a few dumps in a row and moves
// on: not stuck. Even on one stack up to the last dump (dumps 2-4) its cpu=
// rises 3 s per 5 s: it makes progress, so it is not stuck either.
func TestStuckNeedsNoCPUGained(t *testing.T) {
	var rs []*Report
	for i := 1; i <= 5; i++ {
		rs = append(rs, Analyze(parseFixture(t, fmt.Sprintf("jdk17_zoo_asyncappender_series/dump%d.txt", i))[0]))
	}
	const worker = "AsyncAppender-Worker-ASYNC"
	for _, sub := range [][]*Report{rs, rs[1:4]} {
		for _, st := range NewSeries(sub).Stuck {
			if st.Name == worker {
				t.Errorf("the busy appender worker is called stuck: %+v", st)
			}
		}
	}
}

// A j.u.c lock caught between two owners: no owner, and the dump says why.
func TestLockBetweenOwners(t *testing.T) {
	r := Analyze(parseFixture(t, "jdk17_zoo_logback_between_owners.txt")[0])
	var l *Lock
	for _, x := range r.Locks {
		if l == nil || x.NWaiter > l.NWaiter {
			l = x
		}
	}
	if l == nil || l.NWaiter < 40 || l.Owner != nil || !l.BetweenOwners(r.Dump) {
		t.Fatalf("most contended lock %+v: want 40+ waiters, no owner, between owners", l)
	}
	named := 0
	for _, f := range Findings(r, "d") {
		if f.Subject == l.Ref.Class+"@"+l.Ref.Addr {
			named++
			if !strings.Contains(f.Observed.EN, "the lock was changing hands") {
				t.Errorf("%s: %s", f.ID, f.Observed.EN)
			}
		}
	}
	if named == 0 {
		t.Errorf("no finding on the lock")
	}
	var b bytes.Buffer
	WriteText(&b, setOf([]*Report{r}), finding.ZH)
	if !strings.Contains(b.String(), "此刻无持有者：锁正在交接") {
		t.Errorf("the lock table does not say it")
	}
}

// Every dump caught the lock changing hands: said, not left blank.
func TestFindingsOverAllHandoffs(t *testing.T) {
	r := Analyze(parseFixture(t, "jdk17_zoo_fsync_holder_entering_jcmd.txt")[0])
	r2 := Analyze(parseFixture(t, "jdk17_zoo_fsync_holder_entering_jcmd.txt")[0])
	for _, f := range FindingsOver([]*Report{r, r2}, []string{"a", "b"}) {
		if f.ID != "threaddump.lock.app" {
			continue
		}
		if ev := f.EvidenceValue("holder_activity"); ev != "handoff in 2" || !strings.Contains(f.Observed.EN, "the lock changing hands in 2") {
			t.Errorf("holder_activity %q, observed %s", ev, f.Observed.EN)
		}
		return
	}
	t.Error("no app lock finding")
}

// Which dumps call for another look: a contended lock changing hands.
func TestHolderUnseen(t *testing.T) {
	for name, want := range map[string]bool{
		"jdk17_zoo_fsync_holder_entering_jcmd.txt": true,  // the new owner BLOCKED in the handoff
		"jdk17_zoo_logback_between_owners.txt":     true,  // a ReentrantLock between owners
		"jdk17_zoo_fsync_jcmd.txt":                 false, // the holder in force0
		"jdk17_iounderlock_jcmd.txt":               false, // every holder at work
		"jdk17_deadlock_jcmd.txt":                  false,
		"jdk25_virtual_threaddump.json":            false, // no contended lock
	} {
		b, err := os.ReadFile(fixturePath(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := HolderUnseen(string(b)); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	if HolderUnseen("not a dump") {
		t.Error("garbage needs another look")
	}
}

// Mostly handoffs over the dumps: a lock convoy, said so.
func TestFindingsOverConvoy(t *testing.T) {
	entering := func() *Report { return Analyze(parseFixture(t, "jdk17_zoo_fsync_holder_entering_jcmd.txt")[0]) }
	working := Analyze(parseFixture(t, "jdk17_zoo_fsync_jcmd.txt")[0])
	for _, f := range FindingsOver([]*Report{entering(), working, entering()}, []string{"a", "b", "c"}) {
		if f.ID == "threaddump.lock.app" {
			if !strings.Contains(f.Observed.EN, "a lock convoy") || !strings.Contains(f.Observed.ZH, "锁护航") {
				t.Errorf("2 handoffs of 3: %s", f.Observed.EN)
			}
		}
	}
	for _, f := range FindingsOver([]*Report{working, entering(), working}, []string{"a", "b", "c"}) {
		if f.ID == "threaddump.lock.app" && strings.Contains(f.Observed.EN, "convoy") {
			t.Errorf("1 handoff of 3 called a convoy: %s", f.Observed.EN)
		}
	}
}

// Two contended locks of one class in a dump (two logback appenders) make
// one finding over the dumps; each dump counts once.
func TestFindingsOverCountsADumpOnce(t *testing.T) {
	r := func() *Report { return Analyze(parseFixture(t, "jdk17_zoo_logback_two_appender_locks.txt")[0]) }
	n := 0
	for _, c := range r().Culprits {
		if c.ID == "threaddump.lock.logback-appender" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("fixture: %d appender lock culprits, want 2", n)
	}
	for _, f := range FindingsOver([]*Report{r(), r()}, []string{"a", "b"}) {
		if f.ID == "threaddump.lock.logback-appender" {
			if ev := f.EvidenceValue("dumps_showing_it"); ev != "2 of 2" {
				t.Errorf("dumps_showing_it %q, want 2 of 2: %s", ev, f.Observed.EN)
			}
			return
		}
	}
	t.Error("no appender lock finding")
}
