package compare

// The compare side of the differential flame graph (`compare BEFORE AFTER
// --flame-diff F`): each side's profile (the JFR recordings of its runs
// merged, or profile files given directly), the requests it served (the
// runs' load results), and the lists of the frames that grew and shrank
// most, printed under compare's text and Markdown and added to its JSON.

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/stacks"
	runverdict "github.com/tuneloop/tuneloop/internal/verdict"
)

// FlameTopN is how many frames the grew and shrank lists hold.
const FlameTopN = 10

// maxRecording bounds the JFR recording read from one run folder.
const maxRecording = 1 << 30

// FlameSide is one side of a differential flame graph.
type FlameSide struct {
	// Names are the run folders or files, as given.
	Names   []string
	Profile *stacks.Profile
	// Requests is what the side's runs served together; 0 when a run
	// does not say (a recording without load, profile files).
	Requests int64
}

// RunFlameSide reads the JFR recording of every run of a side as kind and
// merges them; the requests are the runs' load results added up.
func RunFlameSide(ins []Input, kind stacks.Kind) (FlameSide, error) {
	s := FlameSide{}
	var ps []*stacks.Profile
	known := true
	for _, in := range ins {
		s.Names = append(s.Names, in.Path)
		b, err := runfolder.ReadInside(in.Path, runverdict.JFRFile, maxRecording)
		if err != nil {
			return s, finding.Errorf(finding.T("--flame-diff: %s has no readable JFR recording (%s): %v",
				"--flame-diff：%s 没有可读的 JFR 记录（%s）：%v"), finding.SafeLine(in.Path), runverdict.JFRFile, err)
		}
		p, err := stacks.JFRProfile(b, kind)
		if err != nil {
			return s, finding.Errorf(finding.T("--flame-diff: %s: %v", "--flame-diff：%s：%v"), finding.SafeLine(in.Path), err)
		}
		DropIdle(p)
		ps = append(ps, p)
		if in.Page == nil || in.Page.Load == nil || in.Page.Load.Requests <= 0 {
			known = false
		} else {
			s.Requests += in.Page.Load.Requests
		}
	}
	if !known {
		s.Requests = 0
	}
	s.Profile = MergeProfiles(ps)
	return s, nil
}

// DropIdle leaves out of a lock profile the pool threads waiting for work
// (stacks.DropIdleWaits): idle, not blocked, and on both sides alike, they
// would only dilute the locks that changed.
func DropIdle(p *stacks.Profile) {
	if p != nil && p.Kind == stacks.Lock {
		p.DropIdleWaits()
	}
}

// MergeProfiles adds profiles of one kind into one (nil for none).
func MergeProfiles(ps []*stacks.Profile) *stacks.Profile {
	if len(ps) == 0 {
		return nil
	}
	if len(ps) == 1 {
		return ps[0]
	}
	out := &stacks.Profile{Kind: ps[0].Kind, Unit: ps[0].Unit}
	acc := map[string]int64{}
	var notes []string
	for _, p := range ps {
		out.Events += p.Events
		out.Total += p.Total
		for _, s := range p.Samples {
			acc[strings.Join(s.Stack, "\x00")] += s.Value
		}
		if p.Note != "" {
			notes = append(notes, p.Note)
		}
	}
	for k, v := range acc {
		out.Samples = append(out.Samples, stacks.Sample{Stack: strings.Split(k, "\x00"), Value: v})
	}
	sort.Slice(out.Samples, func(i, j int) bool {
		if out.Samples[i].Value != out.Samples[j].Value {
			return out.Samples[i].Value > out.Samples[j].Value
		}
		return strings.Join(out.Samples[i].Stack, ";") < strings.Join(out.Samples[j].Stack, ";")
	})
	out.Note = strings.Join(notes, "; ")
	return out
}

// NewFlameDiffPage compares the two sides: per request when both know
// their requests, else per total, as the page says.
func NewFlameDiffPage(before, after FlameSide, lang finding.Lang) (*report.FlameDiffPage, error) {
	d, err := stacks.NewDiff(before.Profile, after.Profile, before.Requests, after.Requests, FlameTopN)
	if err != nil {
		return nil, err
	}
	var notes []finding.Text
	for _, s := range []FlameSide{before, after} {
		if s.Profile != nil && s.Profile.Total == 0 {
			notes = append(notes, finding.Tf(finding.T("%s holds no %s sample", "%s 没有 %s 采样"), strings.Join(s.Names, ", "), string(d.Kind)))
		}
	}
	return report.NewFlameDiffPage(d, report.FlameDiffSide{Name: strings.Join(before.Names, ", ")},
		report.FlameDiffSide{Name: strings.Join(after.Names, ", ")}, notes, lang), nil
}

// WithFlameDiff is compare's JSON with the differential flame graph's
// lists (the tree stays on the page).
type WithFlameDiff struct {
	*Comparison
	FlameDiff *report.FlameDiffPage `json:"flame_diff,omitempty"`
}

// FlameDiffJSON is p without its tree, for compare's JSON (nil for nil).
func FlameDiffJSON(p *report.FlameDiffPage) *report.FlameDiffPage {
	if p == nil {
		return nil
	}
	c := *p
	c.Root = nil
	return &c
}

// writeFlameText prints the frames that grew and shrank most (nothing
// for a nil page).
func writeFlameText(w io.Writer, p *report.FlameDiffPage, lang finding.Lang) error {
	if p == nil {
		return nil
	}
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return finding.T(en, zh).In(lang) }
	fmt.Fprintf(bw, "\n%s (%s, %s)\n", t("Differential flame graph", "差分火焰图"), p.Kind, finding.SafeLine(p.NormText.In(lang)))
	for _, n := range p.Notes {
		fmt.Fprintf(bw, "%s: %s\n", t("note", "说明"), finding.SafeLine(n.In(lang)))
	}
	list := func(title string, fs []stacks.FrameDelta) {
		fmt.Fprintf(bw, "\n%s\n", title)
		if len(fs) == 0 {
			fmt.Fprintf(bw, "  %s\n", t("none", "无"))
		}
		for _, f := range fs {
			fmt.Fprintf(bw, "  %14s  %14s -> %-14s %s%s\n", report.FlameDiffDelta(f.Delta, p.Unit, p.Norm), report.FlameDiffValue(f.Before, p.Unit, p.Norm),
				report.FlameDiffValue(f.After, p.Unit, p.Norm), finding.SafeLine(f.Frame), flameMark(f, lang))
		}
	}
	list(t("Frames that grew most (self):", "增长最多的帧（自身）："), p.Grew)
	list(t("Frames that shrank most (self):", "减少最多的帧（自身）："), p.Shrank)
	return bw.Flush()
}

// writeFlameMarkdown is WriteFlameText as Markdown tables.
func writeFlameMarkdown(w io.Writer, p *report.FlameDiffPage, lang finding.Lang) error {
	if p == nil {
		return nil
	}
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return finding.T(en, zh).In(lang) }
	fmt.Fprintf(bw, "\n## %s (%s)\n\n%s\n", t("Differential flame graph", "差分火焰图"), p.Kind, finding.SafeMarkdown(p.NormText.In(lang)))
	for _, n := range p.Notes {
		fmt.Fprintf(bw, "\n> %s\n", finding.SafeMarkdown(n.In(lang)))
	}
	table := func(title string, fs []stacks.FrameDelta) {
		fmt.Fprintf(bw, "\n### %s\n\n", title)
		if len(fs) == 0 {
			fmt.Fprintf(bw, "%s\n", t("None.", "无。"))
			return
		}
		fmt.Fprintf(bw, "| %s | %s | %s | %s |\n|---:|---:|---:|---|\n", t("change", "变化"), t("before", "改动前"), t("after", "改动后"), t("frame", "帧"))
		for _, f := range fs {
			fmt.Fprintf(bw, "| %s | %s | %s | `%s`%s |\n", report.FlameDiffDelta(f.Delta, p.Unit, p.Norm), report.FlameDiffValue(f.Before, p.Unit, p.Norm),
				report.FlameDiffValue(f.After, p.Unit, p.Norm), finding.SafeMarkdownCode(f.Frame), flameMark(f, lang))
		}
	}
	table(t("Frames that grew most (self)", "增长最多的帧（自身）"), p.Grew)
	table(t("Frames that shrank most (self)", "减少最多的帧（自身）"), p.Shrank)
	return bw.Flush()
}

func flameMark(f stacks.FrameDelta, lang finding.Lang) string {
	switch {
	case f.New:
		return " (" + finding.T("new", "新出现").In(lang) + ")"
	case f.Gone:
		return " (" + finding.T("gone", "已消失").In(lang) + ")"
	}
	return ""
}

// WriteFlame writes the differential flame graph as f: the summary
// (the frames that grew and shrank most) as text, Markdown or JSON, or
// the self-contained page (HTML, the --flame-diff file). It is the
// document's one switch; compare.Write adds the summary to a comparison
// of runs.
func WriteFlame(w io.Writer, p *report.FlameDiffPage, f report.Format, lang finding.Lang) error {
	switch f {
	case report.JSON:
		return report.WriteJSON(w, FlameDiffJSON(p))
	case report.Markdown:
		return writeFlameMarkdown(w, p, lang)
	case report.HTML:
		return html.WriteFlameDiff(w, p)
	}
	return writeFlameText(w, p, lang)
}
