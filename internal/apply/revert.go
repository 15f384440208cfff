package apply

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// Key is one key of a transaction as the journal last left it.
type Key struct {
	Group   int
	Finding string
	Step
	After string
	// State is the last operation recorded for the key.
	State string
	Err   string
	// Since is when tuneloop last wrote the key.
	Since time.Time
	seq   int
}

// Open reports whether revert still has to look at the key.
func (k *Key) Open() bool {
	switch k.State {
	case OpPlanned, OpWritten, OpVerified, OpDrift:
		return true
	}
	return false
}

// Tx is a transaction folded from its journal records.
type Tx struct {
	ID       string
	Began    time.Time
	Roots    hostfs.FS
	Findings []string
	Persist  bool
	Keys     []Key
	// Dead-man timer: the deadline, and whether it was confirmed or fired.
	Deadline  time.Time
	Confirmed bool
	Expired   bool
	WatchPID  int
	// Broken is set when the journal's hash chain does not hold.
	Broken error
}

// Open reports whether any key still needs revert.
func (t *Tx) Open() bool {
	for i := range t.Keys {
		if t.Keys[i].Open() {
			return true
		}
	}
	return false
}

func fold(id string, recs []Record) *Tx {
	t := &Tx{ID: id}
	idx := map[string]int{}
	for _, r := range recs {
		switch r.Op {
		case OpBegin:
			t.Began = r.Time
			if r.Roots != nil {
				t.Roots = *r.Roots
			}
			t.Findings, t.Persist = r.Findings, r.Persist
			continue
		case OpWatchdog:
			t.Deadline, t.WatchPID = r.Deadline, r.PID
			continue
		case OpConfirmed:
			t.Confirmed = true
			continue
		case OpExpired:
			t.Expired = true
			continue
		}
		if r.Key == "" {
			continue
		}
		k := fmt.Sprintf("%d\x00%s", r.Group, r.Key)
		i, ok := idx[k]
		if !ok {
			i = len(t.Keys)
			idx[k] = i
			t.Keys = append(t.Keys, Key{Group: r.Group, Finding: r.Finding, seq: r.Seq,
				Step: Step{Kind: r.Kind, Key: r.Key, Path: r.Path, PID: r.PID, PIDStart: r.PIDStart,
					Before: r.Before, BeforeAbsent: r.BeforeAbsent, Want: r.Want}})
		}
		key := &t.Keys[i]
		key.State, key.Err = r.Op, r.Err
		if r.Op == OpVerified {
			key.After = r.After // what tuneloop's write read back as
		}
		if r.Op == OpPlanned || r.Op == OpWritten {
			key.Since = r.Time
		}
	}
	return t
}

// Status lists the journal's transactions, newest first.
func Status(j *Journal) ([]*Tx, error) {
	ids, err := j.ids()
	if err != nil {
		return nil, err
	}
	var out []*Tx
	for _, id := range ids {
		recs, err := j.read(id)
		var ce *ChainError
		if err != nil && !errors.As(err, &ce) {
			return nil, err
		}
		t := fold(id, recs)
		if ce != nil {
			t.Broken = ce
		}
		out = append(out, t)
	}
	sort.SliceStable(out, func(a, b int) bool {
		if !out[a].Began.Equal(out[b].Began) {
			return out[a].Began.After(out[b].Began)
		}
		return out[a].ID > out[b].ID
	})
	return out, nil
}

// DriftError is a key changed by someone else since tuneloop wrote it.
type DriftError struct {
	Tx, Key, Wrote, Now, Before string
	Since                       time.Time
	// By is a newer tuneloop transaction still holding the key, if any.
	By string
}

func (e *DriftError) Error() string {
	return e.Text().EN
}

// Text says it in both languages.
func (e *DriftError) Text() finding.Text {
	if e.By != "" {
		return finding.Tf(finding.T("%s (transaction %s): changed again by the newer transaction %s (now %q): revert that one first, or use revert --all (newest first)",
			"%s（事务 %s）：已被更新的事务 %s 再次修改（当前为 %q）：请先回退该事务，或使用 revert --all（从最新的开始）"),
			e.Key, e.Tx, e.By, strings.TrimSpace(e.Now))
	}
	return finding.Tf(finding.T("%s (transaction %s): tuneloop wrote %q at %s, it is %q now (before tuneloop: %q): changed by someone else since; not reverted (--force overwrites it with the value before)",
		"%[1]s（事务 %[2]s）：tuneloop 于 %[4]s 写入 %[3]q，现在为 %[5]q（tuneloop 之前为 %[6]q）：此后被他人修改；未回退（--force 会强制写回原值）"),
		e.Key, e.Tx, strings.TrimSpace(e.Wrote), e.Since.Format(time.RFC3339), strings.TrimSpace(e.Now), strings.TrimSpace(e.Before))
}

// Reverted is one key revert put back (or found already back).
type Reverted struct {
	Tx  string
	Key Key
	// Now is the value before revert, To the one written back; Already is
	// true when it was back already.
	Now, To string
	Already bool
}

// RevertResult is what a revert did.
type RevertResult struct {
	Reverted []Reverted
	// Errs are keys not reverted: *DriftError or a failed write.
	Errs []error
}

// RevertOptions select what to revert.
type RevertOptions struct {
	// TxID reverts one transaction; "" with All reverts every open one.
	TxID  string
	All   bool
	Force bool
}

// Revert puts back every open key of the chosen transactions, newest
// transaction first and, within one, the keys in reverse order (a group at
// a time). A key already back at its value before is only marked so: a
// second revert changes nothing.
func Revert(j *Journal, o RevertOptions) (*RevertResult, error) {
	unlock, err := j.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return revertLocked(j, o)
}

func revertLocked(j *Journal, o RevertOptions) (*RevertResult, error) {
	txs, err := Status(j)
	if err != nil {
		return nil, err
	}
	var pick []*Tx
	for _, t := range txs {
		if (o.All || t.ID == o.TxID) && t.Open() {
			pick = append(pick, t)
		}
	}
	if !o.All {
		found := false
		for _, t := range txs {
			found = found || t.ID == o.TxID
		}
		if !found {
			return nil, fmt.Errorf("no transaction %q in %s", o.TxID, j.Dir)
		}
	}
	res := &RevertResult{}
	for _, t := range pick {
		if err := revertTx(j, t, newerHolders(txs, t), o.Force, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// newerHolders maps each key to the newest later transaction still holding
// it: a drift there is tuneloop's own, to be reverted first.
func newerHolders(txs []*Tx, t *Tx) map[string]string {
	m := map[string]string{}
	for _, o := range txs { // newest first
		if o == t || !o.Began.After(t.Began) {
			continue
		}
		for i := range o.Keys {
			if k := &o.Keys[i]; k.Open() {
				if _, ok := m[k.Key]; !ok {
					m[k.Key] = o.ID
				}
			}
		}
	}
	return m
}

func revertTx(j *Journal, t *Tx, newer map[string]string, force bool, res *RevertResult) error {
	if t.Broken != nil && !force {
		res.Errs = append(res.Errs, fmt.Errorf("%w: not reverted (--force reverts from it as it reads)", t.Broken))
		return nil
	}
	recs, err := j.read(t.ID)
	var ce *ChainError
	if err != nil && !errors.As(err, &ce) {
		return err
	}
	tf, err := j.reopen(t.ID, recs)
	if err != nil {
		return err
	}
	defer tf.close()
	groups := map[int][]int{}
	var order []int
	for i := range t.Keys {
		k := &t.Keys[i]
		if !k.Open() {
			continue
		}
		if _, ok := groups[k.Group]; !ok {
			order = append(order, k.Group)
		}
		groups[k.Group] = append(groups[k.Group], i)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(order)))
	for _, g := range order {
		if err := revertGroup(tf, t, groups[g], newer, force, res); err != nil {
			return err
		}
	}
	return nil
}

// revertGroup checks every key of a group for drift before writing any
// (coupled keys must not be half reverted), then writes the values before.
func revertGroup(tf *txFile, t *Tx, idx []int, newer map[string]string, force bool, res *RevertResult) error {
	sort.Slice(idx, func(a, b int) bool { return t.Keys[idx[a]].seq > t.Keys[idx[b]].seq })
	type item struct {
		k       *Key
		now     string
		already bool
	}
	var items []item
	var drift []error
	for _, i := range idx {
		k := &t.Keys[i]
		cur, absent, err := knobOf(k.target(), t.Roots).read()
		if err != nil {
			res.Errs = append(res.Errs, fmt.Errorf("%s (transaction %s): %w", k.Key, t.ID, cleanErr(err, t.Roots)))
			return nil // unreadable: leave the whole group open for the next revert
		}
		back := absent == k.BeforeAbsent && (absent || normalize(k.Key, cur) == normalize(k.Key, k.Before))
		ours := !absent && (normalize(k.Key, cur) == normalize(k.Key, k.Want) ||
			(k.After != "" && normalize(k.Key, cur) == normalize(k.Key, k.After)))
		if !back && !ours && !force {
			drift = append(drift, &DriftError{Tx: t.ID, Key: k.Key, Wrote: k.Want, Now: cur, Before: k.Before, Since: k.Since, By: newer[k.Key]})
		}
		items = append(items, item{k: k, now: cur, already: back})
	}
	if len(drift) > 0 {
		for _, d := range drift {
			de := d.(*DriftError)
			for _, it := range items {
				if it.k.Key == de.Key {
					if err := tf.add(keyRecord(OpDrift, it.k, it.now, de.Error())); err != nil {
						return err
					}
				}
			}
		}
		res.Errs = append(res.Errs, drift...)
		return nil
	}
	keys, vals := make([]string, len(items)), make([]string, len(items))
	restores := map[string]string{}
	for i, it := range items {
		keys[i], vals[i] = it.k.Key, restoreValue(it.k.Key, it.k.Before)
		restores[keys[i]] = vals[i]
	}
	for _, i := range zeroFirst(keys, vals) {
		it := items[i]
		if it.already {
			continue
		}
		err := knobOf(it.k.target(), t.Roots).write(vals[i], it.k.BeforeAbsent)
		tf.j.step()
		if err != nil && !impliedZero(it.k.Key, vals[i], err, restores) {
			res.Errs = append(res.Errs, fmt.Errorf("%s (transaction %s): restoring %q: %w", it.k.Key, t.ID, vals[i], cleanErr(err, t.Roots)))
			return nil
		}
	}
	afters := make([]string, len(items))
	for i, it := range items {
		v, absent, err := knobOf(it.k.target(), t.Roots).read()
		if err == nil && (absent != it.k.BeforeAbsent || (!absent && normalize(it.k.Key, v) != normalize(it.k.Key, it.k.Before))) {
			err = fmt.Errorf("wrote %q back, reads %q", strings.TrimSpace(vals[i]), strings.TrimSpace(v))
		}
		if err != nil {
			res.Errs = append(res.Errs, fmt.Errorf("%s (transaction %s): %w", it.k.Key, t.ID, cleanErr(err, t.Roots)))
			return nil
		}
		afters[i] = v
	}
	for i, it := range items {
		if err := tf.add(keyRecord(OpReverted, it.k, afters[i], "")); err != nil {
			return err
		}
		res.Reverted = append(res.Reverted, Reverted{Tx: t.ID, Key: *it.k, Now: it.now, To: vals[i], Already: it.already})
	}
	return nil
}

func keyRecord(op string, k *Key, after, errText string) Record {
	return Record{Op: op, Group: k.Group, Finding: k.Finding, Kind: k.Kind, Key: k.Key, Path: k.Path, PID: k.PID,
		PIDStart: k.PIDStart, Before: k.Before, BeforeAbsent: k.BeforeAbsent, Want: k.Want, After: after, Err: errText}
}
