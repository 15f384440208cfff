package report

import (
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/mechanism"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// AccountRow is one thread role's time split by state, from one source
// (JFR's samples and timed events, or the dumps' snapshots): the bar the
// report draws per role, so the user sees why the verdict named its cause.
type AccountRow struct {
	Source  string        `json:"source"` // jfr or dumps
	Role    string        `json:"role"`
	Pool    string        `json:"pool,omitempty"`
	Threads int           `json:"threads"`
	Parts   []AccountPart `json:"parts"`
}

// AccountPart is one state's share (0-100) of the row.
type AccountPart struct {
	State string  `json:"state"`
	Pct   float64 `json:"pct"`
}

// MechanismRow is one mechanism the catalogue matched, in the verdict's
// ranking: the first is the one the verdict names.
type MechanismRow struct {
	ID      string       `json:"id"`
	Name    finding.Text `json:"name"`
	Share   float64      `json:"share_pct"`
	Code    string       `json:"code,omitempty"`
	Support string       `json:"support,omitempty"`
	Source  string       `json:"source,omitempty"`
	// Symptom: ranked down as a symptom of saturated CPUs.
	Symptom bool `json:"symptom,omitempty"`
}

// maxAccountRows keeps the section short: the busiest roles first.
const maxAccountRows = 12

// accountRows flattens the decision's account, JFR's book first.
func accountRows(d *verdict.Decision) []AccountRow {
	if d == nil || d.Account == nil {
		return nil
	}
	var out []AccountRow
	for _, b := range d.Account.Books {
		n := 0
		for _, r := range b.Roles {
			if r.Total <= 0 || n == maxAccountRows {
				continue
			}
			n++
			row := AccountRow{Source: string(b.Source), Role: r.Role, Pool: r.Pool, Threads: r.Threads}
			for _, s := range mechanism.States {
				if v := r.ByState[s]; v > 0 {
					row.Parts = append(row.Parts, AccountPart{State: string(s), Pct: 100 * v / r.Total})
				}
			}
			out = append(out, row)
		}
	}
	return out
}

// mechanismRows lists what the catalogue matched, best first.
func mechanismRows(d *verdict.Decision) []MechanismRow {
	if d == nil {
		return nil
	}
	var out []MechanismRow
	for i, n := range d.Mechanisms {
		if i == 8 {
			break
		}
		out = append(out, MechanismRow{ID: n.Entry.ID, Name: n.Entry.Name, Share: 100 * n.Match.Share,
			Code: n.Finding.EvidenceValue("code"), Support: n.Finding.EvidenceValue("support"), Source: string(n.Match.Source), Symptom: n.Symptom})
	}
	return out
}
