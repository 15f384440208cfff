package html

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// jfrFixture is htmlFixture with what a JFR recording adds: the lock table
// joined to the recording's waits (a row from both sources, one from the
// dumps only, one from the recording only, thin) and the allocation and
// lock flame graphs.
func jfrFixture(l finding.Lang) *report.RunPage {
	p := htmlFixture(2, l)
	p.Locks = p.Locks[:3]
	for i := range p.Locks {
		p.Locks[i].Source = "dumps"
	}
	p.Locks[0].Source = "dumps+jfr"
	p.Locks[0].Wait = &report.LockWait{WaitedMS: 286123.4, Events: 5120, SharePct: 70.2, Sites: []report.LockSite{
		{Frame: "ch.qos.logback.core.OutputStreamAppender.writeBytes", WaitedMS: 280000, Events: 5000},
		{Frame: "ch.qos.logback.core.OutputStreamAppender.subAppend", WaitedMS: 6123.4, Events: 120}}}
	p.Locks = append(p.Locks, report.LockRow{Class: "java.lang.Object", Kind: "monitor", Source: "jfr",
		Wait: &report.LockWait{WaitedMS: 431, Events: 4, SharePct: 0.1, Thin: true, Sites: []report.LockSite{{Frame: "sun.nio.ch.SelectorImpl.select", WaitedMS: 431, Events: 4}}}})
	alloc := &report.FlameNode{Name: "all"}
	alloc.Add([]string{"java.lang.Thread.run", "com.example.zoo.Api.handle", "java.lang.StringBuilder.toString", "byte[]"}, 900<<20)
	alloc.Add([]string{"java.lang.Thread.run", "ch.qos.logback.core.encoder.LayoutWrappingEncoder.encode", "byte[]"}, 300<<20)
	lock := &report.FlameNode{Name: "all"}
	lock.Add([]string{"java.lang.Thread.run", "ch.qos.logback.core.OutputStreamAppender.writeBytes", "java.util.concurrent.locks.LockSupport.park", "[park] java.util.concurrent.locks.ReentrantLock$NonfairSync"}, 286_123_400_000)
	lock.Add([]string{"java.lang.Thread.run", "sun.nio.ch.SelectorImpl.select", "[lock] java.lang.Object"}, 431_000_000)
	p.Flames = []report.FlameKind{
		{Kind: "alloc", Unit: "bytes", Events: 2339, Total: 1200 << 20, Source: "2339 JFR allocation samples", Tree: alloc},
		{Kind: "lock", Unit: "nanoseconds", Events: 5124, Total: 286_554_400_000, Source: "5124 JFR monitor enter and park events", Tree: lock},
	}
	return p
}

// The run page with a JFR recording: the lock table says how long threads
// waited and where, each row's source, thin evidence; the flame graph
// switches between CPU, allocation and lock, each in its own unit.
func TestRunPageJFRLocksAndFlames(t *testing.T) {
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		page := renderHTML(t, jfrFixture(l))
		checkSelfContained(t, "run-jfr-"+string(l), page)
		checkGolden(t, "run-jfr-"+string(l), page)
		L := labelsIn(l)
		addRunProfileLabels(L, l)
		for _, want := range []string{
			L["lkwaited"], "286 s", "5,120 " + L["lkevents"], "70.2%", // the joined row
			"ch.qos.<wbr>logback.<wbr>core.<wbr>OutputStreamAppender.<wbr>writeBytes<wbr> (280 s, 5,000)", // its call site
			L["lkboth"], L["lkdumps"], L["lkjfr"], L["lkthin"],
			`id="fk-cpu" checked`, `id="fk-alloc"`, `id="fk-lock"`, `<label for="fk-alloc">` + L["fkalloc"] + `</label>`,
			`id="flame"`, `id="flame-alloc"`, `id="flame-lock"`, "1.3GB", "287 s", // totals in each unit
			"MB (75.00%)", // an allocation frame's tooltip in bytes
		} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the page lacks %q", l, want)
			}
		}
		if strings.Count(page, `class="flame"`) != 3 || strings.Count(page, `<section id="sec-flame">`) != 1 || strings.Count(page, `<section id="sec-locks">`) != 1 {
			t.Errorf("%s: want one flame section with three graphs and one lock table", l)
		}
	}
	// Without a recording the page is the dumps' table and one graph.
	plain := renderHTML(t, htmlFixture(2, finding.EN))
	if strings.Contains(plain, `id="fk-cpu"`) || strings.Contains(plain, "waited (JFR)") {
		t.Error("a run without a recording shows the JFR switch or column")
	}
}

// The switched page in Chromium: no request, the script ran under the CSP,
// the CPU graph zooms (its frames hidden outside the zoom) and the
// allocation graph is in the DOM.
func TestRunPageJFRChromium(t *testing.T) {
	bin := chromiumBin(t)
	p := jfrFixture(finding.EN)
	dom := chromiumPage(t, bin, "run-jfr-en", renderHTML(t, p), *update)
	checkFlameZoom(t, dom, flameSection(p.Flame, "", map[string]string{}))
	d := dom("")
	if !strings.Contains(d, `id="flame-alloc" style="height:`) || !strings.Contains(d, `data-frames=`) {
		t.Error("the allocation graph is not set up in the DOM")
	}
}
