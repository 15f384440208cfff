package apply

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// WatchdogCmd is the hidden subcommand the dead-man timer runs detached:
// WatchdogCmd JOURNAL TX-ID DEADLINE(unix ns).
const WatchdogCmd = "__apply-watchdog"

// The states of a group in the answer besides OpVerified and OpUndone.
const (
	StatePlanned   = "planned"
	StateRefused   = "refused"
	StateUnchanged = "unchanged"
)

// Doc is the answer of `tuneloop apply`: each finding's keys as planned,
// or as written and read back; report.WriteApply renders it.
type Doc struct {
	DryRun  bool       `json:"dry_run"`
	TxID    string     `json:"tx,omitempty"`
	Journal string     `json:"journal"`
	Groups  []GroupDoc `json:"groups"`
	Refused []Refusal  `json:"refused,omitempty"`
	Confirm string     `json:"confirm_by,omitempty"`
	// Confirmed is the transaction `apply --confirm` kept (nothing else is set then).
	Confirmed string `json:"confirmed,omitempty"`
}

// GroupDoc is one finding of Doc.
type GroupDoc struct {
	Finding string   `json:"finding"`
	Keys    []KeyDoc `json:"keys"`
	Same    int      `json:"unchanged,omitempty"`
	Error   string   `json:"error,omitempty"`
	State   string   `json:"state"` // planned, verified, undone, refused, unchanged
	// Conflicts: who else sets these keys (sysctl.d, TuneD).
	Conflicts []finding.Text `json:"conflicts,omitempty"`
}

// KeyDoc is one key of a GroupDoc.
type KeyDoc struct {
	Kind   string `json:"kind"`
	Key    string `json:"key"`
	Before string `json:"before"`
	Want   string `json:"value"`
	After  string `json:"after,omitempty"`
	State  string `json:"state,omitempty"`
}

// Undone says whether a change did not hold and was undone.
func (d *Doc) Undone() bool {
	for _, g := range d.Groups {
		if g.State == OpUndone {
			return true
		}
	}
	return false
}

// Request is one `apply`: the findings to apply (IDs or AllSafe among
// Findings' on Roots), or the transaction Persist makes lasting; Yes
// writes, else a dry run.
type Request struct {
	IDs     []string
	AllSafe bool
	// Findings are those the IDs name (session.ApplyFindings: a live
	// audit of Roots or a run folder's check.json); not called for Persist.
	Findings func(context.Context) ([]finding.Finding, error)
	Roots    hostfs.FS
	Persist  string // TX-ID
	Unit     string // Persist: the systemd unit of the limits' drop-in
	Yes      bool
	// ConfirmWithin > 0 arms a dead-man timer (Exe WatchdogCmd ...; Exe
	// "" is os.Executable) that reverts unless confirmed in time.
	ConfirmWithin time.Duration
	Exe           string
}

// Execute plans the request and, with Yes, applies it through j. A nil
// Doc is a failure before anything could be said; a Doc with an error is
// the answer to show, then the error (the apply failed part way).
func Execute(ctx context.Context, j *Journal, r Request) (*Doc, error) {
	var plan *Plan
	var refused []Refusal
	if r.Persist != "" {
		p, err := PersistPlan(j, r.Persist, r.Unit)
		if err != nil {
			return nil, err
		}
		plan = p
	} else {
		fs, err := r.Findings(ctx)
		if err != nil {
			return nil, err
		}
		var groups []Group
		groups, refused = Select(fs, r.IDs, r.AllSafe)
		plan = NewPlan(r.Roots, groups)
	}
	doc := planDoc(plan, refused, j.Dir, !r.Yes)
	if !r.Yes || !plan.work() {
		return doc, nil
	}
	res, err := Apply(j, plan, Options{})
	if res == nil {
		return doc, err
	}
	doc.result(res)
	if r.ConfirmWithin > 0 && res.TxID != "" && res.Applied() > 0 {
		if aerr := doc.arm(j, res.TxID, r); aerr != nil {
			return nil, aerr
		}
	}
	return doc, err
}

// work says whether some group has a key to change.
func (p *Plan) work() bool {
	for _, g := range p.Groups {
		if g.Err == nil && len(g.Steps) > 0 {
			return true
		}
	}
	return false
}

// planDoc is the plan as the answer of a dry run.
func planDoc(plan *Plan, refused []Refusal, dir string, dry bool) *Doc {
	doc := &Doc{DryRun: dry, Journal: dir, Refused: refused}
	for _, g := range plan.Groups {
		gd := GroupDoc{Finding: g.Finding, Same: len(g.Same), State: StatePlanned, Conflicts: g.Conflicts}
		for _, s := range g.Steps {
			gd.Keys = append(gd.Keys, KeyDoc{Kind: s.Kind, Key: s.Key, Before: s.Before, Want: s.Want})
		}
		switch {
		case g.Err != nil:
			gd.Error, gd.State = g.Err.Error(), StateRefused
		case len(g.Steps) == 0:
			gd.State = StateUnchanged
		}
		doc.Groups = append(doc.Groups, gd)
	}
	return doc
}

// result puts what Apply wrote and read back into the answer.
func (d *Doc) result(res *Result) {
	d.TxID = res.TxID
	for i, g := range res.Groups {
		gd := &d.Groups[i]
		switch {
		case g.Err != nil && len(g.Steps) > 0:
			gd.State, gd.Error = OpUndone, g.Err.Error()
		case g.Err != nil:
			gd.State, gd.Error = StateRefused, g.Err.Error()
		case len(g.Steps) > 0:
			gd.State = OpVerified
		default:
			gd.State = StateUnchanged
		}
		if len(g.Steps) > 0 {
			gd.Keys = gd.Keys[:0]
			for _, s := range g.Steps {
				gd.Keys = append(gd.Keys, KeyDoc{Kind: s.Kind, Key: s.Key, Before: s.Before, Want: s.Want, After: s.After, State: s.State})
			}
		}
	}
}

// arm starts the dead-man timer of transaction id. The changes are in:
// when no timer starts they must not stay unguarded, so they are reverted.
func (d *Doc) arm(j *Journal, id string, r Request) error {
	deadline := time.Now().Add(r.ConfirmWithin)
	exe := r.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("dead-man timer: %w", err)
		}
	}
	jdir, _ := filepath.Abs(j.Dir)
	argv := []string{exe, WatchdogCmd, jdir, id, strconv.FormatInt(deadline.UnixNano(), 10)}
	if err := Arm(j, id, deadline, func() (int, error) { return StartWatchdog(argv) }); err != nil {
		rr, rerr := Revert(j, RevertOptions{TxID: id})
		if rerr == nil && len(rr.Errs) == 0 {
			return fmt.Errorf("dead-man timer could not start (%v): transaction %s reverted", err, id)
		}
		return fmt.Errorf("dead-man timer could not start (%v): run tuneloop revert %s", err, id)
	}
	d.Confirm = deadline.UTC().Format(time.RFC3339)
	return nil
}
