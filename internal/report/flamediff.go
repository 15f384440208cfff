package report

// The page of a differential flame graph (`compare BEFORE AFTER
// --flame-diff F`): two profiles of the same code merged into one tree,
// each frame as wide as its value before and after together, coloured by
// how much it grew (red) or shrank (blue), normalised per request (or per
// total samples when a side does not know its requests, as the page says).
// The builder takes a stacks.Diff; the HTML renderer only draws it.

import (
	"fmt"
	"math"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stacks"
	"github.com/tuneloop/tuneloop/internal/units"
	"github.com/tuneloop/tuneloop/internal/version"
)

// FlameDiffSchema names FlameDiffPage's JSON.
const FlameDiffSchema = "tuneloop.flame-diff/v1"

// FlameDiffSide is one side of the comparison.
type FlameDiffSide struct {
	// Name is what the user gave (run folders or files, joined).
	Name  string `json:"name"`
	Total int64  `json:"total"`
	// Requests the side served (0: unknown, the values are shares).
	Requests int64 `json:"requests,omitempty"`
}

// FlameDiffPage is the document of a differential flame graph.
type FlameDiffPage struct {
	Schema string       `json:"schema"`
	Lang   finding.Lang `json:"lang"`
	Title  string       `json:"title"`
	Tool   Tool         `json:"tool"`
	Kind   string       `json:"kind"`
	Unit   string       `json:"unit"`
	Norm   stacks.Norm  `json:"norm"`
	// NormText says how the values were normalised, for the reader.
	NormText finding.Text        `json:"norm_text"`
	Before   FlameDiffSide       `json:"before"`
	After    FlameDiffSide       `json:"after"`
	Root     *stacks.DiffNode    `json:"flame,omitempty"`
	Grew     []stacks.FrameDelta `json:"grew"`
	Shrank   []stacks.FrameDelta `json:"shrank"`
	Notes    []finding.Text      `json:"notes,omitempty"`
}

// NewFlameDiffPage builds the page of d in language lang.
func NewFlameDiffPage(d *stacks.Diff, before, after FlameDiffSide, notes []finding.Text, lang finding.Lang) *FlameDiffPage {
	p := &FlameDiffPage{Schema: FlameDiffSchema, Lang: lang, Tool: Tool{Name: "tuneloop", Version: version.Version},
		Kind: string(d.Kind), Unit: d.Unit, Norm: d.Norm, Before: before, After: after, Root: d.Root,
		Grew: d.Grew, Shrank: d.Shrank, Notes: notes}
	p.Before.Total, p.After.Total = d.BeforeTotal, d.AfterTotal
	p.Title = finding.T("Differential flame graph", "差分火焰图").In(lang) + " · " + string(d.Kind)
	if d.Norm == stacks.PerRequest {
		p.Before.Requests, p.After.Requests = int64(d.BeforeDenom), int64(d.AfterDenom)
		p.NormText = finding.Tf(finding.T("per request: each side's values divided by the requests it served (before %d, after %d)",
			"按请求归一：每一侧的数值除以其处理的请求数（改动前 %d，改动后 %d）"), p.Before.Requests, p.After.Requests)
	} else {
		p.Before.Requests, p.After.Requests = 0, 0
		p.NormText = finding.T("per total: each side's values as a share of its own total (the request counts are not known for raw files; a frame's share can grow because another shrank)",
			"按总量归一：每一侧的数值占其自身总量的比例（原始文件不知道请求数；某帧的占比可能因其他帧减少而增加）")
	}
	return p
}

// FlameDiffValue says a normalised value: a share in percent (per total),
// or the kind's unit per request.
func FlameDiffValue(v float64, unit string, norm stacks.Norm) string {
	if norm == stacks.PerTotal {
		return trimFloat(100*v, 2) + "%"
	}
	switch unit {
	case "bytes":
		return units.FormatBytesSig(v, 3) + "/req"
	case "nanoseconds":
		if math.Abs(v) >= 1e9 {
			return sig3(v/1e9) + " s/req"
		}
		return sig3(v/1e6) + " ms/req"
	}
	return sig3(v) + " " + unit + "/req"
}

// FlameDiffDelta says a change with its sign.
func FlameDiffDelta(v float64, unit string, norm stacks.Norm) string {
	s := FlameDiffValue(v, unit, norm)
	if norm == stacks.PerTotal {
		s = strings.TrimSuffix(s, "%") + " pt"
	}
	if v > 0 {
		return "+" + s
	}
	return s
}

func sig3(v float64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%.3g", v)
}

func trimFloat(v float64, prec int) string {
	s := fmt.Sprintf("%.*f", prec, v)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
