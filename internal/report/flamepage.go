package report

// The page of one profile of a live JVM (`tuneloop jvm PID --profile KIND`):
// what was recorded, for how long, the flame graph and the top frames by
// self and total value. The builder takes the profile and the capture's
// facts; the HTML renderer (report/html.WriteFlame) only draws it.

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stacks"
	"github.com/tuneloop/tuneloop/internal/units"
	"github.com/tuneloop/tuneloop/internal/version"
)

// FlamePageSchema names FlamePage's JSON.
const FlamePageSchema = "tuneloop.flame-page/v1"

// FlameTopN is how many frames the top tables list.
const FlameTopN = 20

// FlamePage is the document of one profile.
type FlamePage struct {
	Schema string       `json:"schema"`
	Lang   finding.Lang `json:"lang"`
	Title  string       `json:"title"`
	Tool   Tool         `json:"tool"`
	// Kind is cpu, alloc, lock or wall; Unit what a value counts
	// (samples, bytes or nanoseconds).
	Kind string `json:"kind"`
	Unit string `json:"unit"`
	// Target says what was profiled ("pid 4242"); Version is its VM.version.
	Target      string        `json:"target"`
	Version     string        `json:"version,omitempty"`
	Start       time.Time     `json:"start,omitzero"`
	Duration    time.Duration `json:"duration_ns"`
	Interrupted bool          `json:"interrupted,omitempty"`
	// Command is how it was recorded (the JFR.start line).
	Command string              `json:"command,omitempty"`
	Events  int                 `json:"events"`
	Total   int64               `json:"total"`
	Flame   *FlameNode          `json:"flame,omitempty"`
	BySelf  []stacks.FrameValue `json:"by_self,omitempty"`
	ByTotal []stacks.FrameValue `json:"by_total,omitempty"`
	Notes   []finding.Text      `json:"notes,omitempty"`
	// Findings are the native catalogue's (--profile native).
	Findings []finding.Finding `json:"findings,omitempty"`
	// Files are the other outputs written next to the page, by role
	// (collapsed, pprof, jfr), as given.
	Files map[string]string `json:"files,omitempty"`
}

// FlameMeta is what the capture knew besides the profile.
type FlameMeta struct {
	Target, Version, Command string
	Start                    time.Time
	Duration                 time.Duration
	Interrupted              bool
	Notes                    []finding.Text
	Files                    map[string]string
	Findings                 []finding.Finding
}

// NewFlamePage builds the page of profile p in language lang.
func NewFlamePage(p *stacks.Profile, m FlameMeta, lang finding.Lang) *FlamePage {
	fp := &FlamePage{Schema: FlamePageSchema, Lang: lang, Tool: Tool{Name: "tuneloop", Version: version.Version},
		Kind: string(p.Kind), Unit: p.Unit, Target: m.Target, Version: m.Version, Start: m.Start, Duration: m.Duration,
		Interrupted: m.Interrupted, Command: m.Command, Events: p.Events, Total: p.Total, Notes: m.Notes, Files: m.Files,
		Findings: m.Findings}
	fp.Title = m.Target + " · " + string(p.Kind)
	if p.Total > 0 {
		fp.Flame = p.Tree()
	}
	fp.BySelf, fp.ByTotal = p.Top(FlameTopN)
	return fp
}

// WriteFlameText writes the profile's summary for a terminal: what was
// recorded, the notes, the top n frames by self and by total value, and
// the files written.
func WriteFlameText(w io.Writer, p *FlamePage, n int) error {
	l := p.Lang
	tw := finding.NewTable(w, 2, false) // by display width: CJK frames
	kind := map[string]finding.Text{
		"cpu":    finding.T("CPU profile", "CPU 剖析"),
		"alloc":  finding.T("allocation profile", "内存分配剖析"),
		"lock":   finding.T("lock profile (time blocked)", "锁剖析（阻塞时间）"),
		"wall":   finding.T("wall-clock profile", "墙钟时间剖析"),
		"native": finding.T("native profile (Java, native and kernel frames)", "原生剖析（Java、原生与内核帧）"),
	}[p.Kind].In(l)
	total := FlameValue(p.Total, p.Unit)
	if p.Unit == "samples" {
		total += " " + finding.T("samples", "个采样").In(l)
	}
	// Collapsed stacks carry no duration: say none rather than "0s".
	recorded := ""
	if p.Duration > 0 {
		recorded = fmt.Sprintf(" · %s %s", finding.T("recorded", "记录").In(l), p.Duration.Round(100*time.Millisecond))
	}
	fmt.Fprintf(w, "%s · %s%s · %d %s · %s %s\n", finding.SafeLine(p.Target), kind, recorded,
		p.Events, finding.T("events", "个事件").In(l), finding.T("total", "总量").In(l), total)
	if p.Interrupted {
		fmt.Fprintln(w, finding.T("stopped early: what was recorded until then", "提前停止：以下为此前记录的内容").In(l))
	}
	if p.Version != "" {
		fmt.Fprintln(w, finding.SafeLine(p.Version))
	}
	for _, note := range p.Notes {
		fmt.Fprintf(w, "%s: %s\n", finding.T("note", "说明").In(l), finding.SafeLine(note.In(l)))
	}
	pct := func(v int64) string {
		if p.Total <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(v)/float64(p.Total))
	}
	table := func(title finding.Text, rows []stacks.FrameValue, val func(stacks.FrameValue) int64) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s\n", title.In(l))
		for i, r := range rows {
			if i == n {
				break
			}
			fmt.Fprintf(tw, "%12s\t%6s\t%s\n", FlameValue(val(r), p.Unit), pct(val(r)), finding.SafeLine(r.Frame))
		}
		tw.Flush()
	}
	table(finding.T("Top frames by self (where it is spent):", "按自身值排序的热点帧（消耗发生处）："), p.BySelf, func(v stacks.FrameValue) int64 { return v.Self })
	table(finding.T("Top frames by total (what calls it):", "按总计值排序的热点帧（调用路径）："), p.ByTotal, func(v stacks.FrameValue) int64 { return v.Total })
	for i, f := range p.Findings {
		if i == 0 {
			fmt.Fprintf(w, "\n%s\n", finding.T("Known native pathologies:", "已知的原生性能问题：").In(l))
		}
		fmt.Fprintf(w, "  [%s] %s (%s)\n", f.Severity.Label(l), finding.SafeLine(f.Title.In(l)), f.Key())
		fmt.Fprintf(w, "      %s\n", finding.SafeLine(f.Observed.In(l)))
		fmt.Fprintf(w, "      %s: %s\n", finding.T("fix", "修复").In(l), finding.SafeLine(f.Recommended.In(l)))
		if f.Fix.Apply != "" {
			fmt.Fprintf(w, "      %s: %s\n", finding.T("apply", "执行").In(l), finding.SafeLine(f.Fix.Apply))
		}
	}
	if len(p.Files) > 0 {
		fmt.Fprintf(w, "\n%s\n", finding.T("Files:", "文件：").In(l))
		roles := make([]string, 0, len(p.Files))
		for r := range p.Files {
			roles = append(roles, r)
		}
		sort.Strings(roles)
		for _, r := range roles {
			fmt.Fprintf(w, "  %s %s\n", finding.PadRight(r, 10), finding.SafeLine(p.Files[r]))
		}
	}
	return nil
}

// FlameValue says a profile value in its unit: samples as a count, bytes
// in KiB/MiB/GiB, nanoseconds in ms or s.
func FlameValue(v int64, unit string) string {
	switch unit {
	case "bytes":
		return units.FormatBytesScaled(float64(v), 1)
	case "nanoseconds":
		if v >= 1e9 {
			return fmt.Sprintf("%.2f s", float64(v)/1e9)
		}
		return fmt.Sprintf("%.1f ms", float64(v)/1e6)
	}
	return fmt.Sprint(v)
}
