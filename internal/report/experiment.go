package report

import (
	"github.com/tuneloop/tuneloop/internal/finding"
)

// ExperimentSchema versions the experiment document.
const ExperimentSchema = "tuneloop.experiment/1"

// Experiment is the document of `tuneloop experiment`: the arms measured,
// the winner re-measured against the baseline (the only gain it claims),
// and what was changed on the host and undone. Strings from the plan or
// the target are raw here; writers sanitise them.
type Experiment struct {
	Schema string `json:"schema"`
	Tool   Tool   `json:"tool"`
	Dir    string `json:"dir"`
	// Service is the start command (or "pid N"); Target the URL loaded.
	Service string `json:"service"`
	Target  string `json:"target"`
	// Load says users or rate, the measured window and the warm-up.
	Load        finding.Text `json:"load"`
	Repetitions int          `json:"repetitions"`
	Seed        uint64       `json:"seed"`
	// Metric is tps or p99_ms; Higher is +1 when more is better.
	Metric string `json:"metric"`
	Higher int    `json:"higher"`
	// P99BoundMS and ErrorBoundPct are the constraints (0: none).
	P99BoundMS    float64 `json:"p99_bound_ms,omitempty"`
	ErrorBoundPct float64 `json:"error_bound_pct,omitempty"`
	PowerPct      float64 `json:"power_pct"`
	// Mode is "grid" (every arm, interleaved) or "successive halving".
	Mode  string           `json:"mode"`
	Knobs []ExperimentKnob `json:"knobs"`
	// Arms: the baseline first, then by rank in the screening.
	Arms []ExperimentArm `json:"arms"`
	// Winner is the best arm of the screening that meets the constraints
	// ("" when none did); Confirm its fresh interleaved block against the
	// baseline.
	Winner  string             `json:"winner,omitempty"`
	Confirm *ExperimentConfirm `json:"confirm,omitempty"`
	Trials  []ExperimentTrial  `json:"trials"`
	Changes []ExperimentChange `json:"changes"`
	// Overlay says how JVM options reached the service.
	Overlay finding.Text `json:"overlay"`
	// Stopped says where an interrupted experiment stopped (a rerun with
	// the same --out continues there).
	Stopped *finding.Text  `json:"stopped,omitempty"`
	Notes   []finding.Text `json:"notes,omitempty"`
}

// ExperimentKnob is one knob of the plan.
type ExperimentKnob struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Key      string   `json:"key,omitempty"`
	Values   []string `json:"values"`
	Baseline string   `json:"baseline"`
}

// Interval is a mean with its 95% interval (Lo = Hi = Mean with one value).
type Interval struct {
	Mean float64 `json:"mean"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	N    int     `json:"n"`
}

// Gain is a change against the baseline with its 95% interval and verdict.
type Gain struct {
	Pct     float64 `json:"pct"`
	LoPct   float64 `json:"lo_pct"`
	HiPct   float64 `json:"hi_pct"`
	Method  string  `json:"method"`
	Verdict string  `json:"verdict"` // better, worse, no significant change, inconclusive
	// MoreRuns is the trials per side to add when inconclusive.
	MoreRuns int `json:"more_runs,omitempty"`
	// Why says why the interval and the rank test over the trials'
	// launches disagree (inconclusive), when they do.
	Why *finding.Text `json:"why,omitempty"`
}

// ExperimentArm is one row of the table.
type ExperimentArm struct {
	ID       string   `json:"id"`
	Label    string   `json:"label"`
	Values   []string `json:"values"`
	Trials   int      `json:"trials"`
	TPS      Interval `json:"tps"`
	P99MS    Interval `json:"p99_ms"`
	ErrorPct float64  `json:"error_pct"`
	// Gain is the objective's change against the baseline over the
	// screening trials (nil for the baseline): a screening number, not the
	// claim; the claim is Confirm.
	Gain *Gain `json:"gain,omitempty"`
	// Status: baseline, winner, dropped, refused, constraint, measured.
	Status string       `json:"status"`
	Why    finding.Text `json:"why"`
	// Round the arm was dropped after (successive halving).
	Round int `json:"round,omitempty"`
}

// ExperimentConfirm is the winner against the baseline in a fresh block.
type ExperimentConfirm struct {
	Arm    string   `json:"arm"`
	Label  string   `json:"label"`
	Trials int      `json:"trials_per_side"`
	Base   Interval `json:"baseline_tps"`
	Win    Interval `json:"winner_tps"`
	BaseP  Interval `json:"baseline_p99_ms"`
	WinP   Interval `json:"winner_p99_ms"`
	TPS    *Gain    `json:"tps_gain,omitempty"`
	P99    *Gain    `json:"p99_change,omitempty"`
	// Objective is the gain of the objective's metric: the headline.
	Objective *Gain `json:"objective,omitempty"`
}

// ExperimentTrial is one trial in the order it ran.
type ExperimentTrial struct {
	Seq    int     `json:"seq"`
	Key    string  `json:"key"`
	Arm    string  `json:"arm"`
	Dir    string  `json:"dir,omitempty"`
	TPS    float64 `json:"tps"`
	P99MS  float64 `json:"p99_ms"`
	Status string  `json:"status"` // done, refused, stopped, not run
}

// ExperimentChange is one thing an arm changed, and whether it was undone.
type ExperimentChange struct {
	Arm string `json:"arm"`
	// What: "JAVA_TOOL_OPTIONS=...", "env K=V", "sysctl k=v".
	What string `json:"what"`
	// How it was undone (the launch ended; journal transaction reverted).
	Undo   finding.Text `json:"undo"`
	Undone bool         `json:"undone"`
	Txs    []string     `json:"txs,omitempty"`
}
