package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
)

// writeDropinNext prints what makes the systemd drop-ins an apply wrote
// (or would write) take effect: tuneloop never reloads or restarts a unit.
func writeDropinNext(w io.Writer, d *applyDoc, l finding.Lang) {
	var keys []string
	for _, g := range d.Groups {
		if g.State != apply.OpVerified && g.State != "planned" {
			continue
		}
		for _, k := range g.Keys {
			if k.Kind == apply.KindDropin {
				keys = append(keys, k.Key)
			}
		}
	}
	for _, t := range apply.NextSteps(keys) {
		fmt.Fprintf(w, "%s\n", t.In(l))
	}
}

// dropinRevertLine is a reverted drop-in as one line (its content is a
// file, not a value to print inline); ok is false for other keys.
func dropinRevertLine(r apply.Reverted, l finding.Lang) (line string, ok bool) {
	if r.Key.Kind != apply.KindDropin {
		return "", false
	}
	what := finding.T("removed (it was not there before)", "已删除（之前不存在）")
	switch {
	case r.Already:
		what = finding.T("already back", "已是原样")
	case !r.Key.BeforeAbsent:
		what = finding.Tf(finding.T("its earlier content put back (%d lines)", "已恢复原内容（%d 行）"), strings.Count(r.Key.Before, "\n"))
	}
	return fmt.Sprintf("%s  %s  %s", r.Tx, finding.SafeLine(r.Key.Key), what.In(l)), true
}

// writeDropinRevertNext prints the reload and restart a reverted drop-in
// needs before the unit runs without it.
func writeDropinRevertNext(w io.Writer, res *apply.RevertResult, l finding.Lang) {
	var keys []string
	for _, r := range res.Reverted {
		if r.Key.Kind == apply.KindDropin && !r.Already {
			keys = append(keys, r.Key.Key)
		}
	}
	for _, t := range apply.NextSteps(keys) {
		fmt.Fprintf(w, "%s\n", t.In(l))
	}
}
