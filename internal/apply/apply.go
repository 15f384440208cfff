// Package apply changes host knobs (sysctls, sysfs attributes, process
// limits, NIC channels, the sysctl.d file) as transactions through a
// write-ahead journal, and reverts them exactly.
//
// Every key goes planned -> written -> verified (or undone) and each step
// is an fsync'd journal record before the next, so a process killed at any
// point leaves a journal from which Revert restores the host. Revert refuses
// a key someone else changed since (drift) unless forced, and is a no-op the
// second time. All paths are under a hostfs.FS, so tests run on fake trees.
package apply

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// Group is the changes of one finding: applied together, undone together.
type Group struct {
	Finding string
	Changes []finding.Change
}

// Step is one key of a plan with the value read before and the one to set.
type Step struct {
	Kind, Key, Path string
	PID             int
	PIDStart        uint64
	Before          string
	BeforeAbsent    bool
	Want            string
}

func (s Step) target() target {
	return target{Kind: s.Kind, Key: s.Key, Path: s.Path, PID: s.PID, PIDStart: s.PIDStart}
}

// Same reports whether the key already holds the value to set.
func (s Step) Same() bool {
	return !s.BeforeAbsent && normalize(s.Key, s.Before) == normalize(s.Key, s.Want)
}

// PlannedGroup is a Group resolved against the host.
type PlannedGroup struct {
	Finding string
	// Steps are the keys to change; keys already at their value are in Same.
	Steps []Step
	Same  []Step
	// Err says why the group cannot be applied (a key missing, unreadable,
	// a kind not supported); nothing of it is written then.
	Err error
	// Conflicts name who else sets these keys (sysctl.d, TuneD): said
	// before the apply, not a reason to refuse it.
	Conflicts []finding.Text
}

// Plan is what an apply would do: read-only to build, printed by a dry run.
type Plan struct {
	Roots  hostfs.FS
	Groups []PlannedGroup
	// Persist marks the plan of `apply --persist` (its own transaction).
	Persist bool
}

// NewPlan resolves each group's changes under roots and reads the current
// values. A coupled sysctl brings its partner along (set to 0 when it is
// not 0 now), since the kernel zeroes it anyway.
func NewPlan(roots hostfs.FS, groups []Group) *Plan {
	p := &Plan{Roots: roots}
	for _, g := range groups {
		pg := planGroup(roots, g)
		if pg.Err == nil {
			pg.Conflicts = conflicts(roots, pg.Steps)
		}
		p.Groups = append(p.Groups, pg)
	}
	return p
}

func planGroup(roots hostfs.FS, g Group) PlannedGroup {
	pg := PlannedGroup{Finding: g.Finding}
	changes := append([]finding.Change(nil), g.Changes...)
	named := map[string]bool{}
	for _, c := range changes {
		named[c.Key] = true
	}
	for _, c := range g.Changes {
		if c.Kind == KindFile {
			pg.Err = errors.New("files are written only by apply --persist")
			return pg
		}
		if c.Kind == finding.ChangeSysctl && c.Value != "0" {
			if q := partner(c.Key); q != "" && !named[q] {
				changes = append(changes, finding.Change{Kind: c.Kind, Key: q, Value: "0"})
				named[q] = true
			}
		}
	}
	if len(changes) == 0 {
		pg.Err = errors.New("no change to apply")
		return pg
	}
	for _, c := range changes {
		ts, err := resolve(roots, c)
		if err != nil {
			pg.Err = err
			return pg
		}
		for _, t := range ts {
			v, absent, err := knobOf(t, roots).read()
			if err != nil {
				if t.Kind == finding.ChangeSysctl && partner(t.Key) != "" && c.Value == "0" {
					continue // the partner knob of an old kernel: nothing to zero
				}
				pg.Err = fmt.Errorf("%s: %w", t.Key, cleanErr(err, roots))
				return pg
			}
			s := Step{Kind: t.Kind, Key: t.Key, Path: t.Path, PID: t.PID, PIDStart: t.PIDStart,
				Before: v, BeforeAbsent: absent, Want: c.Value}
			if s.Same() {
				pg.Same = append(pg.Same, s)
			} else {
				pg.Steps = append(pg.Steps, s)
			}
		}
	}
	return pg
}

// cleanErr names a host path the way a user knows it.
func cleanErr(err error, roots hostfs.FS) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", roots.Display(pe.Path), pe.Err)
	}
	return err
}

// zeroFirst orders a group's writes: a coupled sysctl set to 0 goes before
// its partner, so the partner's write is the one that sticks.
func zeroFirst(keys []string, vals []string) []int {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		za := partner(keys[idx[a]]) != "" && strings.TrimSpace(vals[idx[a]]) == "0"
		zb := partner(keys[idx[b]]) != "" && strings.TrimSpace(vals[idx[b]]) == "0"
		return za && !zb
	})
	return idx
}

// impliedZero reports whether a failed write of 0 to a coupled sysctl is
// fine: its partner is set non-zero in the same group, and the kernel
// zeroes this one then (vm.dirty_bytes refuses 0 with EINVAL).
func impliedZero(key, val string, err error, group map[string]string) bool {
	q := partner(key)
	if q == "" || strings.TrimSpace(val) != "0" || !errors.Is(err, syscall.EINVAL) {
		return false
	}
	v, ok := group[q]
	return ok && strings.TrimSpace(v) != "0"
}

// Options tune Apply.
type Options struct {
	Now func() time.Time
}

// Result is what an apply did.
type Result struct {
	TxID   string
	Groups []GroupResult
}

// GroupResult is one finding's outcome.
type GroupResult struct {
	Finding string
	Steps   []StepResult
	// Err is why the group was not applied or was undone; nil when verified.
	Err error
}

// StepResult is one key after apply.
type StepResult struct {
	Step
	After string
	State string // OpVerified or OpUndone
}

// Applied is the number of groups verified.
func (r *Result) Applied() int {
	n := 0
	for _, g := range r.Groups {
		if g.Err == nil && len(g.Steps) > 0 {
			n++
		}
	}
	return n
}

// Apply carries out the plan as one transaction in j. Groups that cannot be
// planned are skipped; a group whose write fails or does not read back as
// written is undone at once. The returned Result says which, per group.
func Apply(j *Journal, p *Plan, o Options) (*Result, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	work := 0
	var names []string
	for _, g := range p.Groups {
		if g.Err == nil && len(g.Steps) > 0 {
			work++
			names = append(names, g.Finding)
		}
	}
	if work == 0 {
		return &Result{}, errors.New("nothing to apply")
	}
	unlock, err := j.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	tx, err := j.create(now())
	if err != nil {
		return nil, err
	}
	defer tx.close()
	roots := p.Roots
	if err := tx.add(Record{Op: OpBegin, Roots: &roots, Findings: names, Persist: p.Persist}); err != nil {
		return nil, err
	}
	res := &Result{TxID: tx.id}
	for gi, g := range p.Groups {
		if g.Err != nil || len(g.Steps) == 0 {
			res.Groups = append(res.Groups, GroupResult{Finding: g.Finding, Err: g.Err})
			continue
		}
		gr, err := applyGroup(tx, roots, gi, g)
		if err != nil {
			return res, err // the journal itself failed: stop, revert can finish
		}
		res.Groups = append(res.Groups, gr)
	}
	return res, nil
}

// applyGroup writes one group: planned+write+written per key, then reads
// every key back; any failure undoes the keys written so far.
func applyGroup(tx *txFile, roots hostfs.FS, gi int, g PlannedGroup) (GroupResult, error) {
	gr := GroupResult{Finding: g.Finding}
	keys, vals := make([]string, len(g.Steps)), make([]string, len(g.Steps))
	wants := map[string]string{}
	for i, s := range g.Steps {
		keys[i], vals[i] = s.Key, s.Want
		wants[s.Key] = s.Want
	}
	rec := func(op string, s Step, after string, e error) Record {
		r := Record{Op: op, Group: gi, Finding: g.Finding, Kind: s.Kind, Key: s.Key, Path: s.Path, PID: s.PID,
			PIDStart: s.PIDStart, Before: s.Before, BeforeAbsent: s.BeforeAbsent, Want: s.Want, After: after}
		if e != nil {
			r.Err = e.Error()
		}
		return r
	}
	var written []Step
	var failure error
	for _, i := range zeroFirst(keys, vals) {
		s := g.Steps[i]
		if err := tx.add(rec(OpPlanned, s, "", nil)); err != nil {
			return gr, err
		}
		err := knobOf(s.target(), roots).write(s.Want, false)
		tx.j.step()
		if err != nil && !impliedZero(s.Key, s.Want, err, wants) {
			failure = fmt.Errorf("%s: %w", s.Key, cleanErr(err, roots))
			written = append(written, s) // a failed store may still have changed it: put back too
			break
		}
		if err := tx.add(rec(OpWritten, s, "", nil)); err != nil {
			return gr, err
		}
		written = append(written, s)
	}
	afters := map[string]string{}
	if failure == nil {
		for _, s := range g.Steps {
			v, _, err := knobOf(s.target(), roots).read()
			afters[s.Key] = v
			if err != nil {
				failure = fmt.Errorf("%s: reading back: %w", s.Key, cleanErr(err, roots))
				break
			}
			if normalize(s.Key, v) != normalize(s.Key, s.Want) {
				failure = fmt.Errorf("%s: wrote %q, reads back %q", s.Key, s.Want, v)
				break
			}
		}
	}
	if failure == nil {
		for _, s := range g.Steps {
			if err := tx.add(rec(OpVerified, s, afters[s.Key], nil)); err != nil {
				return gr, err
			}
			gr.Steps = append(gr.Steps, StepResult{Step: s, After: afters[s.Key], State: OpVerified})
		}
		return gr, nil
	}
	// Undo at once, newest first (zero-valued coupled keys first again).
	gr.Err = failure
	rk, rv := make([]string, len(written)), make([]string, len(written))
	for i := range written {
		s := written[len(written)-1-i]
		rk[i], rv[i] = s.Key, restoreValue(s.Key, s.Before)
	}
	restores := map[string]string{}
	for i := range rk {
		restores[rk[i]] = rv[i]
	}
	for _, i := range zeroFirst(rk, rv) {
		s := written[len(written)-1-i]
		err := knobOf(s.target(), roots).write(rv[i], s.BeforeAbsent)
		tx.j.step()
		if err != nil && !impliedZero(s.Key, rv[i], err, restores) {
			// Left open in the journal: revert tries again and reports.
			gr.Err = fmt.Errorf("%w; undoing %s failed: %v (run tuneloop revert %s)", failure, s.Key, cleanErr(err, roots), tx.id)
			gr.Steps = append(gr.Steps, StepResult{Step: s, State: OpWritten})
			continue
		}
		if err := tx.add(rec(OpUndone, s, "", failure)); err != nil {
			return gr, err
		}
		gr.Steps = append(gr.Steps, StepResult{Step: s, State: OpUndone})
	}
	return gr, nil
}
