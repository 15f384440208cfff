package html

import (
	"bytes"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/report"
)

// gcFixture is the page of real GC logs (testdata/gc, copies of gclog's
// corpus and live logs), analysed the way analyze does.
func gcFixture(t *testing.T, l finding.Lang, files ...string) *report.GCPage {
	t.Helper()
	var srcs []gclog.Source
	for _, f := range files {
		srcs = append(srcs, gclog.FileSources(filepath.Join("testdata", "gc", f))...)
	}
	rs, evs, err := report.AnalyzeGC(t.Context(), srcs, gclog.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	p := report.NewGCPage(rs, evs, l)
	p.Tool.Version = "v0.9.0-test"
	return p
}

// dumpFixture is the page of a real set of 4 jcmd dumps of the zoo's
// fsync scenario (testdata/dumps, a copy of threaddump's).
func dumpFixture(t *testing.T, l finding.Lang) *report.DumpPage {
	t.Helper()
	dir := filepath.Join("testdata", "dumps", "jdk17_zoo_fsync_series")
	var ins []threaddump.Input
	for _, n := range []string{"dump1.txt", "dump2.txt", "dump3.txt", "dump4.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, threaddump.Input{Name: n, R: bytes.NewReader(b)})
	}
	p := report.NewDumpPage(threaddump.ReadSet(ins), l)
	p.Tool.Version = "v0.9.0-test"
	return p
}

const (
	cmsLog = "openjdk_SampleSun1_7_0_40CMS_PrintGCCause.txt"
	g1Log  = "jdk17-g1.log"
)

// analyzePages are the committed pages of analyze (golden_test.go compares them).
func analyzePages(t *testing.T) map[string]func() (string, error) {
	render := func(gc *report.GCPage, d *report.DumpPage) func() (string, error) {
		return func() (string, error) {
			var b bytes.Buffer
			err := WriteAnalyze(&b, gc, d)
			return b.String(), err
		}
	}
	return map[string]func() (string, error){
		"gc-cms-en":    render(gcFixture(t, finding.EN, cmsLog), nil),
		"gc-cms-zh":    render(gcFixture(t, finding.ZH, cmsLog), nil),
		"gc-g1-en":     render(gcFixture(t, finding.EN, g1Log), nil),
		"gc-g1-zh":     render(gcFixture(t, finding.ZH, g1Log), nil),
		"dumps-en":     render(nil, dumpFixture(t, finding.EN)),
		"dumps-zh":     render(nil, dumpFixture(t, finding.ZH)),
		"all-2jvms-en": render(gcFixture(t, finding.EN, cmsLog, g1Log), dumpFixture(t, finding.EN)),
	}
}

func TestAnalyzeGoldenPages(t *testing.T) {
	for name, render := range analyzePages(t) {
		t.Run(name, func(t *testing.T) {
			got, err := render()
			if err != nil {
				t.Fatal(err)
			}
			checkSelfContained(t, name, got)
			checkGolden(t, name, got)
			// the same page twice is the same bytes (no clock, no map order)
			if again, _ := render(); again != got {
				t.Errorf("%s: two renders differ: %s", name, firstDiff(got, again))
			}
		})
	}
}

// What a user of GCViewer looks for on the GC page: the charts, the KPIs,
// the findings, in the page's language.
func TestWriteGC(t *testing.T) {
	for _, tc := range []struct {
		lang finding.Lang
		want []string
	}{
		{finding.EN, []string{"tuneloop GC log report", "Heap before and after each collection", "Young and old generation", "Pauses over time, by kind",
			"Allocation and promotion rate over time", "Pauses by cause", "CMS", "allocation rate", "Checked, no problem", "gc.long-pause", "JVM uptime"}},
		{finding.ZH, []string{"tuneloop GC 日志报告", "每次回收前后的堆占用", "每次回收前后的新生代与老年代", "停顿随时间变化（按类型）", "分配与晋升速率随时间变化", `lang="zh"`}},
	} {
		p := gcFixture(t, tc.lang, cmsLog)
		j := p.JVMs[0]
		if len(j.Heap) == 0 || len(j.Pauses) == 0 || len(j.Rates) == 0 || !j.Generations {
			t.Fatalf("CMS log: %d heap points, %d pauses, %d rates, generations %v", len(j.Heap), len(j.Pauses), len(j.Rates), j.Generations)
		}
		var b bytes.Buffer
		if err := WriteGC(&b, p); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		checkSelfContained(t, "gc", s)
		for _, f := range j.Findings {
			if f.ID == "gc.not-the-bottleneck" && !strings.Contains(s, `<p class="gcverdict">`+f.Title.In(tc.lang)) {
				t.Errorf("%s: verdict %q not shown", tc.lang, f.Title.In(tc.lang))
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: missing %q", tc.lang, w)
			}
		}
		// heap, generations, pauses, rates: four charts
		if n := strings.Count(s, `<svg class="chart"`); n != 4 {
			t.Errorf("%s: %d charts, want 4", tc.lang, n)
		}
	}
	if err := WriteGC(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil page: no error")
	}
}

// A 3-second log has time but too little of it: the page says so where
// the throughput would be, and its throughput finding says why.
func TestWriteGCTooShort(t *testing.T) {
	p := gcFixture(t, finding.EN, g1Log)
	var b bytes.Buffer
	if err := WriteGC(&b, p); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, w := range []string{"too short to judge (93 pauses over 3.3 s)", `<div class="k">GC throughput</div><div class="v">too short to judge`, "Too short to judge (93 pauses over 3.3 s)"} {
		if !strings.Contains(s, w) {
			t.Errorf("missing %q", w)
		}
	}
}

// Logs of two JVMs given together: one section each, charts in each.
func TestWriteGCTwoJVMs(t *testing.T) {
	p := gcFixture(t, finding.EN, cmsLog, g1Log)
	if len(p.JVMs) != 2 {
		t.Fatalf("%d JVMs, want 2", len(p.JVMs))
	}
	for i, j := range p.JVMs {
		if len(j.Pauses) == 0 {
			t.Errorf("JVM %d: no pause points", i+1)
		}
	}
	var b bytes.Buffer
	if err := WriteGC(&b, p); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, w := range []string{`id="sec-jvm-1"`, `id="sec-jvm-2"`, "JVM 2", "gc.separate-jvms"} {
		if !strings.Contains(s, w) {
			t.Errorf("missing %q", w)
		}
	}
}

// What a user of TDA/fastThread looks for: each dump's threads by state
// and pool, the lock 48 threads queue on with its owner and waiters, the
// flame graph, the findings with their evidence.
func TestWriteDumps(t *testing.T) {
	p := dumpFixture(t, finding.EN)
	if len(p.Dumps) != 4 || len(p.Locks) == 0 || p.Flame == nil {
		t.Fatalf("fixture: %d dumps, %d locks, flame %v", len(p.Dumps), len(p.Locks), p.Flame != nil)
	}
	var b bytes.Buffer
	if err := WriteDumps(&b, p); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	checkSelfContained(t, "dumps", s)
	top := p.Locks[0]
	for _, w := range []string{"tuneloop thread dump report", `id="sec-dumps"`, `id="sec-pools"`, `id="sec-locks"`, `id="sec-flame"`, `id="sec-findings"`,
		"http-nio-18431-exec-N", "dump4.txt:1", "RUNNABLE", "BLOCKED", top.Owner, top.WaiterNames[0], "waiting:", `<table class="ev">`} {
		if !strings.Contains(s, w) {
			t.Errorf("missing %q", w)
		}
	}
	if top.Waiters < 10 || len(top.WaiterNames) < 10 {
		t.Errorf("top lock: %d waiters, %d named", top.Waiters, len(top.WaiterNames))
	}
	// every failing finding of the set is on the page, with its key
	for _, f := range p.Findings {
		if f.Status == finding.Fail && !strings.Contains(s, finding.SafeOneLine(f.Key())) {
			t.Errorf("finding %s not shown", f.Key())
		}
	}
	// one pool table per dump, the last one open
	if n := strings.Count(s, "<details"); n != 4 || strings.Count(s, "<details open>") != 1 {
		t.Errorf("%d pool tables (%d open)", n, strings.Count(s, "<details open>"))
	}
	if err := WriteDumps(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil page: no error")
	}
	if err := WriteAnalyze(&bytes.Buffer{}, nil, nil); err == nil {
		t.Error("nothing to write: no error")
	}
}

// Thread names, lock classes and file names from a dump reach the page
// escaped, with control characters shown, never as markup.
func TestWriteDumpsHostile(t *testing.T) {
	const hostile = "2026-11-22 01:02:03\nFull thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode):\n\n" +
		"\"<script>alert(1)</script>\a\x1b[31mRED\" #20 prio=5 os_prio=0 cpu=1.00ms elapsed=9.00s tid=0x1 nid=0x2 waiting for monitor entry [0x3]\n" +
		"   java.lang.Thread.State: BLOCKED (on object monitor)\n" +
		"\tat com.x.<img src=x>.run(A.java:1)\n" +
		"\t- waiting to lock <0x00000000deadbeef> (a com.x.\"><script>Lock)\n\n" +
		"\"owner\x07\" #21 prio=5 os_prio=0 cpu=1.00ms elapsed=9.00s tid=0x4 nid=0x5 runnable [0x6]\n" +
		"   java.lang.Thread.State: RUNNABLE\n" +
		"\tat com.x.Y.write(Y.java:2)\n" +
		"\t- locked <0x00000000deadbeef> (a com.x.\"><script>Lock)\n\n"
	set := threaddump.ReadSet([]threaddump.Input{{Name: "dump<b>\x1b[2J.txt", R: strings.NewReader(hostile)}})
	p := report.NewDumpPage(set, finding.EN)
	if len(p.Dumps) != 1 {
		t.Fatalf("%d dumps (unreadable: %v)", len(p.Dumps), p.Unreadable)
	}
	var b bytes.Buffer
	if err := WriteDumps(&b, p); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	checkSelfContained(t, "hostile dumps", s)
	for _, bad := range []string{"<script>alert", "<img src=x", `"><script`, "dump<b>", "\a", "\x1b"} {
		if strings.Contains(s, bad) {
			i := strings.Index(s, bad)
			t.Errorf("raw %q: …%s…", bad, s[max(0, i-80):min(len(s), i+80)])
		}
	}
	for _, want := range []string{`&lt;script&gt;alert(1)&lt;/script&gt;\x07\x1b[31mRED`, `dump&lt;b&gt;\x1b[2J.txt`} {
		if !strings.Contains(s, want) {
			t.Errorf("%q not shown", want)
		}
	}
}

// The GC page's points stay capped however long the log, the longest pause kept.
func TestGCEventsCap(t *testing.T) {
	ev := report.NewGCEvents()
	longest, pauses := 0.0, 0
	for i := range 3 * report.MaxGCPoints {
		e := gclog.NewEvent()
		e.Uptime, e.Kind, e.PauseMs = float64(i), gclog.KindYoung, float64(i%97)
		if i == 1234 {
			e.PauseMs = 5000
		}
		longest = max(longest, e.PauseMs)
		if e.PauseMs > 0 {
			pauses++
		}
		e.HeapBeforeKB, e.HeapAfterKB = 2048, 1024
		ev.Add(&e)
	}
	p := report.NewGCPage([]*gclog.Report{{}}, []*report.GCEvents{ev}, finding.EN)
	j := p.JVMs[0]
	if len(j.Heap) >= report.MaxGCPoints || len(j.Pauses) >= report.MaxGCPoints || j.PauseEvents != pauses || j.Collections != 3*report.MaxGCPoints {
		t.Errorf("%d heap points, %d pause points of %d", len(j.Heap), len(j.Pauses), j.PauseEvents)
	}
	got := 0.0
	for _, pp := range j.Pauses {
		got = max(got, pp.MS)
	}
	if got != longest {
		t.Errorf("longest pause %v lost (max kept %v)", longest, got)
	}
	// 1 MB allocated per second: the rate says so after merging
	for _, r := range j.Rates[1:] {
		if r.AllocMBs < 0.9 || r.AllocMBs > 1.1 {
			t.Errorf("allocation rate %v MB/s at %v, want 1", r.AllocMBs, r.T)
			break
		}
	}
}

// TestAnalyzeChromium loads analyze's pages in headless Chromium: they
// render, make no request, log no console error, and the dump page's
// flame graph zooms.
func TestAnalyzeChromium(t *testing.T) {
	bin := chromiumBin(t)
	pages := analyzePages(t)
	for _, name := range []string{"gc-cms-en", "gc-g1-zh", "dumps-en", "all-2jvms-en"} {
		t.Run(name, func(t *testing.T) {
			s, err := pages[name]()
			if err != nil {
				t.Fatal(err)
			}
			dom := chromiumPage(t, bin, name, s, *update)
			if strings.HasPrefix(name, "gc-") {
				if d := dom(""); strings.Count(d, "<svg") < 3 {
					t.Errorf("%d charts in the DOM", strings.Count(d, "<svg"))
				}
				return
			}
			checkFlameZoom(t, dom, flameSection(dumpFixture(t, finding.EN).Flame, "", map[string]string{}))
		})
	}
}

// File names, causes and finding text from a GC log reach the page
// escaped, with control characters shown, never as markup.
func TestWriteGCHostile(t *testing.T) {
	const bad = "gc<script>alert(1)</script>\a\x1b[31m.log"
	ev := report.NewGCEvents()
	for i := range 20 {
		e := gclog.NewEvent()
		e.Uptime, e.Kind, e.PauseMs, e.HeapBeforeKB, e.HeapAfterKB = float64(i), gclog.KindYoung, 5, 4096, 1024
		ev.Add(&e)
	}
	r := &gclog.Report{Summary: gclog.Summary{Files: []gclog.FileSummary{{Name: bad, Format: "jdk8", Collector: "G1"}}, CollectorName: "G1<b>",
		HasTime: true, DurationS: 19, Pauses: 20, ThroughputPct: 99, AllocRateMBs: -1, PromotionRateMBs: -1,
		ByCause: []gclog.Agg{{Name: "<img src=x>\x1b]0;pwned\a", Count: 20, TotalMs: 100, MaxMs: 5}}},
		Findings: []finding.Finding{{ID: "gc.long-pause", Subject: bad, Status: finding.Fail, Severity: finding.Warning,
			Title: finding.T("long <script>", "长 <script>"), Observed: finding.T(bad, bad),
			Evidence: []finding.Evidence{{Key: "file", Value: bad, Source: bad}}}}}
	var b bytes.Buffer
	if err := WriteGC(&b, report.NewGCPage([]*gclog.Report{r}, []*report.GCEvents{ev}, finding.EN)); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	checkSelfContained(t, "hostile gc", s)
	for _, raw := range []string{"<script>alert", "<img src=x", "G1<b>", "long <script>", "\a", "\x1b"} {
		if strings.Contains(s, raw) {
			i := strings.Index(s, raw)
			t.Errorf("raw %q: …%s…", raw, s[max(0, i-80):min(len(s), i+80)])
		}
	}
	for _, want := range []string{`gc&lt;script&gt;alert(1)&lt;/script&gt;\x07\x1b[31m.log`, `&lt;img src=x&gt;\x1b]0;pwned\x07`} {
		if !strings.Contains(s, want) {
			t.Errorf("%q not shown", want)
		}
	}
}

// A real JVM deadlock: the page lists each thread of the cycle with the
// lock it waits for, and the deadlock finding.
func TestWriteDumpsDeadlock(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "dumps", "jdk17_deadlock_jcmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p := report.NewDumpPage(threaddump.ReadSet([]threaddump.Input{{Name: "deadlock.txt", R: bytes.NewReader(b)}}), finding.ZH)
	if len(p.Deadlocks) == 0 {
		t.Fatal("no deadlock in the fixture")
	}
	var out bytes.Buffer
	if err := WriteDumps(&out, p); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	checkSelfContained(t, "deadlock", s)
	if !strings.Contains(s, `<section id="sec-deadlocks">`) || !strings.Contains(s, "死锁") || !strings.Contains(s, `href="#sec-deadlocks"`) {
		t.Error("no deadlock section in the contents")
	}
	d := p.Deadlocks[0]
	for i, th := range d.Threads {
		if row := "<tr><td>" + finding.SafeOneLine(th) + "</td><td><code>" + template.HTMLEscapeString(d.Locks[i]) + "</code>"; !strings.Contains(s, row) {
			t.Errorf("no row %q", row)
		}
	}
	dead := false
	for _, f := range p.Findings {
		dead = dead || (f.Status == finding.Fail && strings.Contains(f.ID, "deadlock"))
	}
	if !dead {
		t.Error("no failing deadlock finding")
	}
}
