package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
)

// WriteProbe writes a probe in f (ProbeFormats): the one switch of the
// probe document but its page (html.WriteProbe of NewProbePage).
func WriteProbe(w io.Writer, r *probe.Result, f Format, l finding.Lang) error {
	switch f {
	case JSON:
		return WriteJSON(w, r)
	case Markdown:
		return writeProbeMarkdown(w, r, l)
	}
	return writeProbeText(w, r, l)
}

// WriteProbeCompare writes a comparison of two probes as text, Markdown or
// JSON for compare.WriteProbes, the document's one switch (its formats are
// compare.ProbeFormats, the page included: html.WriteProbeCompare of
// NewProbeComparePage, which report cannot import).
func WriteProbeCompare(w io.Writer, c *probe.Comparison, f Format, l finding.Lang) error {
	switch f {
	case JSON:
		return WriteJSON(w, c)
	case Markdown:
		return writeProbeCompareMarkdown(w, c, l)
	case Text:
		return writeProbeCompareText(w, c, l)
	}
	return fmt.Errorf("report: the probe comparison as %s: written by compare.WriteProbes", f)
}

// ProbeComparePage is a comparison of two probes as the HTML page draws
// it, in one language, every string already made safe text: per figure
// both sides with their rounds, the change with its interval and whether
// it is significant; the host settings that differ and the check findings
// on one side only.
type ProbeComparePage struct {
	Lang finding.Lang
	Tool string
	A, B ProbeSideView
	// Worse, Better and Same count the figures by verdict.
	Worse, Better, Same int
	Parts               []ProbeComparePart
	Differences         []ProbeDiffView
	Explain             []string
	Checks              []ProbeCheckView
}

// ProbeSideView is one side: where it came from, its host, when.
type ProbeSideView struct {
	Label, HostLine, Start string
	Quick                  bool
}

// ProbeComparePart is one part's figures.
type ProbeComparePart struct {
	ID, Title string
	Rows      []ProbeCompareRowView
}

// ProbeCompareRowView is one figure on both sides.
type ProbeCompareRowView struct {
	ID, Name, Unit string
	// A and B are the medians, AInterval and BInterval their intervals.
	A, B, AInterval, BInterval string
	// Change is "+12.3% [+8.1%, +16.4%]"; Verdict says it in words and
	// Class is worse, better, same or none (too few rounds, one side).
	Change, Verdict, Class string
	// What the strips draw: each side's rounds, interval and median on one
	// scale, and the change's interval around 0 (NaN: unknown).
	ARounds, BRounds        []float64
	ALo, AHi, AMed          float64
	BLo, BHi, BMed          float64
	ChangePct, LoPct, HiPct float64
	HigherIsBetter          bool
}

// ProbeDiffView is one host setting that differs, and the figures it is
// known to move.
type ProbeDiffView struct{ What, A, B, Moves string }

// ProbeCheckView is a check finding failing on one side only.
type ProbeCheckView struct{ Side, Severity, ID, Subject, Title string }

// NewProbeComparePage builds the page of c in l.
func NewProbeComparePage(c *probe.Comparison, tool string, l finding.Lang) *ProbeComparePage {
	side := func(s probe.Side) ProbeSideView {
		return ProbeSideView{Label: finding.SafeLine(s.Label), HostLine: ProbeHostLine(s.Host), Start: finding.SafeLine(s.Start), Quick: s.Quick}
	}
	p := &ProbeComparePage{Lang: l, Tool: finding.SafeLine(tool), A: side(c.A), B: side(c.B)}
	parts := map[string]int{}
	for i := range c.Rows {
		r := &c.Rows[i]
		part := rowPart(r)
		k, ok := parts[part]
		if !ok {
			k = len(p.Parts)
			parts[part] = k
			p.Parts = append(p.Parts, ProbeComparePart{ID: part, Title: partTitle(part).In(l)})
		}
		v := ProbeCompareRowView{ID: finding.SafeLine(r.ID), Name: finding.SafeLine(r.Name.In(l)), Unit: finding.SafeLine(r.Unit),
			A: sideValue(r.A), B: sideValue(r.B), AInterval: sideInterval(r.A), BInterval: sideInterval(r.B),
			Change: FmtProbeChange(r), Verdict: ProbeVerdict(r.Verdict, l), Class: verdictClass(r.Verdict),
			ALo: math.NaN(), AHi: math.NaN(), AMed: math.NaN(), BLo: math.NaN(), BHi: math.NaN(), BMed: math.NaN(),
			ChangePct: r.ChangePct, LoPct: r.LoPct, HiPct: r.HiPct, HigherIsBetter: r.Higher}
		if f := r.A; f != nil {
			v.ARounds, v.ALo, v.AHi, v.AMed = f.Rounds, f.Lo, f.Hi, f.Median
		}
		if f := r.B; f != nil {
			v.BRounds, v.BLo, v.BHi, v.BMed = f.Rounds, f.Lo, f.Hi, f.Median
		}
		switch r.Verdict {
		case probe.Worse:
			p.Worse++
		case probe.Better:
			p.Better++
		case probe.Same:
			p.Same++
		}
		p.Parts[k].Rows = append(p.Parts[k].Rows, v)
	}
	order := []string{probe.PartNet, probe.PartCPU, probe.PartMem, probe.PartDisk}
	slices.SortStableFunc(p.Parts, func(a, b ProbeComparePart) int { return partRank(order, a.ID) - partRank(order, b.ID) })
	for _, d := range c.Differences {
		p.Differences = append(p.Differences, ProbeDiffView{What: finding.SafeLine(d.What.In(l)), A: finding.SafeLine(d.A), B: finding.SafeLine(d.B),
			Moves: finding.SafeLine(strings.Join(d.Moves, ", "))})
	}
	for _, e := range c.Explain {
		p.Explain = append(p.Explain, finding.SafeLine(e.In(l)))
	}
	for _, x := range c.Checks {
		p.Checks = append(p.Checks, ProbeCheckView{Side: strings.ToUpper(finding.SafeLine(x.Side)), Severity: x.Severity.Label(l),
			ID: finding.SafeLine(x.ID), Subject: finding.SafeLine(x.Subject), Title: finding.SafeLine(x.Title.In(l))})
	}
	return p
}

// rowPart is the part a compared figure belongs to.
func rowPart(r *probe.CompareRow) string {
	switch {
	case r.A != nil && r.A.Part != "":
		return r.A.Part
	case r.B != nil && r.B.Part != "":
		return r.B.Part
	}
	part, _, _ := strings.Cut(r.ID, ".")
	return part
}

func partRank(order []string, part string) int {
	if i := slices.Index(order, part); i >= 0 {
		return i
	}
	return len(order)
}

func sideInterval(f *probe.Figure) string {
	if f == nil {
		return "—"
	}
	return ProbeInterval(f)
}

// verdictClass is the page's class of a compared figure's verdict.
func verdictClass(v string) string {
	switch v {
	case probe.Worse:
		return "worse"
	case probe.Better:
		return "better"
	case probe.Same:
		return "same"
	}
	return "none"
}
