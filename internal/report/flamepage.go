package report

// The page of one profile of a live JVM (`tuneloop jvm PID --profile KIND`):
// what was recorded, for how long, the flame graph and the top frames by
// self and total value. The builder takes the profile and the capture's
// facts; the HTML renderer (report/html.WriteFlame) only draws it.

import (
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stacks"
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
}

// NewFlamePage builds the page of profile p in language lang.
func NewFlamePage(p *stacks.Profile, m FlameMeta, lang finding.Lang) *FlamePage {
	fp := &FlamePage{Schema: FlamePageSchema, Lang: lang, Tool: Tool{Name: "tuneloop", Version: version.Version},
		Kind: string(p.Kind), Unit: p.Unit, Target: m.Target, Version: m.Version, Start: m.Start, Duration: m.Duration,
		Interrupted: m.Interrupted, Command: m.Command, Events: p.Events, Total: p.Total, Notes: m.Notes, Files: m.Files}
	fp.Title = m.Target + " · " + string(p.Kind)
	if p.Total > 0 {
		fp.Flame = p.Tree()
	}
	fp.BySelf, fp.ByTotal = p.Top(FlameTopN)
	return fp
}
