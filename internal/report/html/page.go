// Package html renders a report.RunPage as one self-contained HTML file:
// no network at all (a Content-Security-Policy forbids it even by mistake),
// charts drawn server-side as inline SVG (and heat strips as data: PNGs),
// a small inline script only for zooming the flame graph.
//
// Every string of the RunPage may be hostile (thread names, lock classes,
// URLs from the target). Strings reach the page only through html/template
// (contextual escaping) after finding.Safe or finding.SafeLine (valid UTF-8,
// no control characters); the few strings written into the server-side SVG
// go through finding.SafeHTML. The same page renders to the same bytes: no
// clock, no map order.
//
// Files by job: page.go (the view model, the template, WriteRun),
// sections.go (each section's view), charts.go (SVG charts), heatmap.go
// (PNG heat strips), flame.go (flame graph layout), format.go (scales and
// number formats), labels.go (the page's words in English and Chinese).
package html

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/units"
)

//go:embed assets/report.css
var reportCSS string

//go:embed assets/report.js
var reportJS string

//go:embed assets/report.html
var runHTML string

//go:embed assets/pieces.html
var piecesHTML string

// Caps that keep the page small whatever the run's length or width.
const (
	maxSeriesPoints = 600  // points per line or area series
	maxHeatColumns  = 600  // columns of a per-CPU heat strip
	maxFlameNodes   = 2000 // frames of the flame graph, biggest first
	maxLockRows     = 20
	maxGCPoints     = 2000
	smallMultiples  = 16 // up to this many CPUs: one chart per CPU; more: heat strips
)

// htmlView is what the template draws; every string in it is already safe
// text (the template escapes it) or trusted markup we built (template.HTML).
type htmlView struct {
	frame
	Verdict  *findingView
	NoFind   bool
	Account  *accountHTML
	Load     *loadHTML
	Series   []template.HTML
	TimeNote string
	CPU      *cpuHTML
	Softirq  *softHTML
	Threads  *threadsHTML
	Locks    []lockView
	LockMore int
	LockJFR  []lockJFRView // the lock table with the JFR waits (runprofiles.go)
	GC       *gcHTML
	Flame    *flameHTML
	Flames   []flameKindView // CPU, allocation, lock graphs behind a switch (runprofiles.go)
	Findings []findingView
	Unavail  []findingView
	Check    []findingView
	Facts    [][2]string
	Hosts    template.HTML // a multi-host run's hosts (hosts.go)
	// LoadDetail is the load test page's sections (runload.go).
	LoadDetail template.HTML
}

// frame is what every page's head, header and footer draw (pieces.html).
type frame struct {
	Lang     string
	L        map[string]string
	CSS      template.CSS
	JS       template.JS
	Data     map[string]any // JSON for the script
	Title    string
	HostLine string
	Meta     [][2]string
	Notice   []string
	Counts   string
	Nav      navList
	Tool     string
	Gen      string
}

// navList is the header's table of contents: section id, heading.
type navList [][2]string

// add lists the section id under heading when ok (it is on the page).
func (n *navList) add(ok bool, id, heading string) {
	if ok {
		*n = append(*n, [2]string{id, heading})
	}
}

// toolLine names the tool and version that wrote a page, for its footer.
func toolLine(t report.Tool) string {
	s := "tuneloop"
	if t.Name != "" {
		s = finding.SafeOneLine(t.Name)
	}
	if t.Version != "" {
		s += " " + finding.SafeOneLine(t.Version)
	}
	return s
}

// newFrame is a page's frame in language l with the labels L.
func newFrame(l finding.Lang, L map[string]string) frame {
	return frame{Lang: string(l), L: L, CSS: template.CSS(reportCSS), JS: template.JS(reportJS)}
}

// pageLang is l, or English for anything but Chinese.
func pageLang(l finding.Lang) finding.Lang {
	if l != finding.ZH {
		return finding.EN
	}
	return l
}

// writePage executes the page template body (with the shared pieces) on
// view and writes it whole, or nothing on an error.
func writePage(w io.Writer, name, body string, view any) error {
	// Parsed per call: no package state, and a few hundred microseconds
	// against a page that takes far longer to draw.
	t, err := template.New(name).Parse(piecesHTML)
	if err == nil {
		_, err = t.Parse(body)
	}
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, view); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// findingViews splits fs into the failing findings, ranked, and those that
// could not be evaluated.
func findingViews(fs []finding.Finding, l finding.Lang) (ranked, unavail []findingView) {
	rank := 0
	for i := range fs {
		f := &fs[i]
		switch f.Status {
		case finding.Fail:
			rank++
			ranked = append(ranked, viewFinding(f, rank, l))
		case finding.Unavailable:
			unavail = append(unavail, viewFinding(f, 0, l))
		}
	}
	return ranked, unavail
}

// WriteRun writes the run page as one self-contained HTML document in p.Lang.
func WriteRun(w io.Writer, p *report.RunPage) error {
	if p == nil {
		return fmt.Errorf("html: nil run page")
	}
	return writePage(w, "run", runHTML+runProfilesHTML, buildView(p))
}

// buildView reduces p to the view, every section nil when p has nothing for it.
func buildView(p *report.RunPage) *htmlView {
	l := pageLang(p.Lang)
	L := labelsIn(l)
	v := &htmlView{frame: newFrame(l, L)}
	v.Title = finding.SafeOneLine(p.Title)
	r := p.Run
	if r == nil {
		r = &report.RunSummary{}
	}
	if v.Title == "" {
		v.Title = finding.SafeOneLine(r.ID)
	}
	v.HostLine = finding.SafeOneLine(r.Host.Line(l))
	add := func(k, val string) {
		if val = finding.SafeOneLine(val); val != "" {
			v.Meta = append(v.Meta, [2]string{L[k], val})
		}
	}
	add("folder", r.Dir)
	if !r.Start.IsZero() {
		span := r.Start.UTC().Format("2006-01-02 15:04:05")
		if !r.End.IsZero() {
			span += " – " + r.End.UTC().Format("15:04:05")
		}
		add("time", span+" UTC")
	}
	add("status", r.Status)
	add("command", r.Command)
	if r.TargetPID != 0 {
		add("target", fmt.Sprintf("%s (pid %d)", r.TargetComm, r.TargetPID))
	}
	if r.CostCPUPct > 0 || r.CostMaxRSSKB > 0 {
		add("recordcost", fmt.Sprintf("%.2f%% CPU, %s RSS", r.CostCPUPct, units.FormatMiB(float64(r.CostMaxRSSKB)/1024, 1)))
	}
	for _, c := range r.OtherCosts() { // each cost for what it is
		v.Meta = append(v.Meta, [2]string{c.Label.In(l), finding.SafeOneLine(c.Value.In(l))})
	}
	if r.Incomplete {
		v.Notice = append(v.Notice, L["incomplete"])
	}
	if r.Reason != "" {
		v.Notice = append(v.Notice, L["endedearly"]+": "+finding.SafeOneLine(r.Reason))
	}
	c := finding.Count(r.Findings)
	v.Counts = fmt.Sprintf(L["counts"], c.Critical, c.Warning, c.Info)
	v.Tool = toolLine(r.Tool)
	if !r.GeneratedAt.IsZero() {
		v.Gen = r.GeneratedAt.UTC().Format("2006-01-02 15:04:05 UTC")
	}

	if p.Verdict != nil {
		fv := viewFinding(p.Verdict, 0, l)
		v.Verdict = &fv
	} else {
		v.NoFind = c.Fail == 0
	}
	v.Findings, v.Unavail = findingViews(r.Findings, l)
	for i := range p.Check {
		if p.Check[i].Status == finding.Fail || p.Check[i].Status == "" {
			v.Check = append(v.Check, viewFinding(&p.Check[i], 0, l))
		}
	}
	for _, f := range p.Facts {
		if k, val := finding.SafeOneLine(f[0]), finding.Safe(f[1]); k != "" || val != "" {
			v.Facts = append(v.Facts, [2]string{k, val})
		}
	}

	tr := timeDomain(p)
	if !tr.t0.IsZero() {
		v.TimeNote = fmt.Sprintf(L["sincestart"], tr.t0.UTC().Format("15:04:05"))
		// The verdict's window, unless it is the whole run (nothing to point at).
		if w := p.Verdict; w != nil && w.Window != nil {
			b0, b1 := tr.secs(w.Window.From), tr.secs(w.Window.To)
			if b1 > b0 && b1-b0 < 0.9*tr.span() {
				tr.b0, tr.b1 = max(b0, 0), b1
				v.TimeNote += fmt.Sprintf(L["bandnote"], w.Window.From.UTC().Format("15:04:05"), w.Window.To.UTC().Format("15:04:05"))
			}
		}
	}
	v.Account = accountSection(p, l, L)
	v.Load, v.Series = loadSection(p.Load, tr, L, p.Lang)
	v.LoadDetail = runLoadSection(p)
	v.CPU = cpuSection(p.CPU, tr, L)
	v.Softirq = softirqSection(p.Softirq, tr, L)
	v.Threads = threadsSection(p.ThreadStates, tr, L)
	v.Locks, v.LockMore = lockSection(p.Locks)
	v.GC = gcSection(p.GC, L, l)
	v.Flame = flameSection(p.Flame, finding.SafeOneLine(p.FlameSource), L)
	addRunProfileLabels(L, l)
	v.LockJFR, _ = runLocksSection(p.Locks, L)
	v.Flames = runFlames(p, L)
	nav := func(ok bool, id, k string) { v.Nav.add(ok, id, L[k]) }
	nav(true, "sec-verdict", "verdict")
	nav(v.Account != nil, "sec-account", "account")
	nav(v.Series != nil, "sec-load", "loadseries")
	v.Nav.add(v.LoadDetail != "", "sec-load-summary", runLoadNav(l))
	nav(v.CPU != nil, "sec-cpu", "cpu")
	nav(v.Softirq != nil, "sec-softirq", "softirq")
	nav(v.Threads != nil, "sec-threads", "threads")
	nav(v.Locks != nil, "sec-locks", "locks")
	nav(v.GC != nil, "sec-gc", "gc")
	nav(v.Flame != nil || v.Flames != nil, "sec-flame", "flame")
	nav(v.Findings != nil || v.Unavail != nil, "sec-findings", "findings")
	nav(v.Check != nil, "sec-check", "check")
	nav(v.Facts != nil, "sec-facts", "facts")
	if v.Hosts = hostsSection(p.Hosts, tr, l); v.Hosts != "" {
		v.Nav.add(true, "sec-hosts", hostLabels(l)["title"])
	}
	v.Data = map[string]any{"lang": string(l), "title": v.Title, "samples": L["samples"], "reset": L["reset"]}
	return v
}
