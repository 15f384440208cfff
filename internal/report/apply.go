package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
)

// ApplyFormats are WriteApply's.
func ApplyFormats() Formats { return TextJSON() }

// WriteApply writes the answer of `tuneloop apply` in f (ApplyFormats),
// its one switch.
func WriteApply(w io.Writer, d *apply.Doc, f Format, l finding.Lang) error {
	if f == JSON {
		return WriteJSON(w, d)
	}
	writeApplyText(w, d, l)
	return nil
}

func writeApplyText(w io.Writer, d *apply.Doc, l finding.Lang) {
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	if d.Confirmed != "" {
		fmt.Fprintf(w, "%s %s\n", t("confirmed: the changes of transaction", "已确认：保留事务"), finding.SafeLine(d.Confirmed))
		return
	}
	if d.DryRun {
		fmt.Fprintln(w, t("Dry run: nothing was changed. Add --yes to apply.", "演练：未做任何修改。加 --yes 才会执行。"))
	} else if d.TxID == "" {
		fmt.Fprintln(w, t("Nothing to change.", "没有需要修改的内容。"))
	} else {
		fmt.Fprintf(w, "%s %s (%s %s)\n", t("Transaction", "事务"), d.TxID, t("journal", "日志目录"), finding.SafeLine(d.Journal))
	}
	width := 0
	for _, g := range d.Groups {
		for _, k := range g.Keys {
			width = max(width, finding.DisplayWidth(finding.SafeLine(k.Key)))
		}
	}
	width = min(width, 60)
	for _, g := range d.Groups {
		writeApplyGroup(w, g, width, l)
	}
	for _, r := range d.Refused {
		label := t("cannot be applied", "无法应用")
		if r.Nothing {
			label = t("nothing to do", "无需处理")
		}
		fmt.Fprintf(w, "\n%s  [%s]\n  %s\n", finding.SafeLine(r.Finding), label, r.Why.In(l))
	}
	writeDropinNext(w, d, l)
	if d.TxID != "" {
		fmt.Fprintf(w, "\n%s tuneloop revert %s\n", t("Undo with:", "撤销："), d.TxID)
		fmt.Fprintf(w, "%s tuneloop apply --persist %s\n", t("Keep sysctls and limits across restarts:", "重启后保留 sysctl 与资源限制："), d.TxID)
	}
	if d.Confirm != "" {
		fmt.Fprintf(w, "%s tuneloop apply --confirm %s  (%s %s)\n", t("Keep the changes:", "保留修改："), d.TxID, t("else reverted at", "否则将于此时回退："), d.Confirm)
	}
}

// applyStates are the words of a group's state.
var applyStates = map[string]finding.Text{
	apply.StatePlanned: finding.T("would change", "将修改"), apply.OpVerified: finding.T("applied, read back", "已应用并回读确认"),
	apply.OpUndone: finding.T("did not hold: undone", "未生效：已撤销"), apply.StateRefused: finding.T("cannot be applied", "无法应用"),
	apply.StateUnchanged: finding.T("already set", "已是目标值"),
}

// writeApplyGroup is one finding: its state, each key before -> after,
// why it cannot be applied, who else sets its keys.
func writeApplyGroup(w io.Writer, g apply.GroupDoc, width int, l finding.Lang) {
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	state := applyStates[g.State]
	fmt.Fprintf(w, "\n%s  [%s]\n", finding.SafeLine(g.Finding), state.In(l))
	for _, k := range g.Keys {
		if k.Kind == apply.KindFile || k.Kind == apply.KindDropin {
			writeFileChange(w, k)
			continue
		}
		line := fmt.Sprintf("  %s  %s -> %s", finding.PadRight(finding.SafeLine(k.Key), width), finding.SafeLine(strings.TrimSpace(k.Before)), finding.SafeLine(k.Want))
		if k.After != "" && strings.TrimSpace(k.After) != strings.TrimSpace(k.Want) {
			line += fmt.Sprintf("  (%s %s)", t("reads", "回读"), finding.SafeLine(k.After))
		}
		fmt.Fprintln(w, line)
	}
	if g.Same > 0 {
		fmt.Fprintf(w, "  %s\n", finding.Tf(finding.T("(%d more already at the value)", "（另有 %d 项已是目标值）"), g.Same).In(l))
	}
	if g.Error != "" {
		fmt.Fprintf(w, "  %s\n", finding.SafeLine(g.Error))
	}
	for _, c := range g.Conflicts {
		fmt.Fprintf(w, "  %s %s\n", t("note:", "注意："), c.In(l))
	}
}

// writeFileChange shows a file tuneloop writes as the lines it adds.
func writeFileChange(w io.Writer, k apply.KeyDoc) {
	fmt.Fprintf(w, "  %s:\n", finding.SafeLine(k.Key))
	had := map[string]bool{}
	for _, line := range strings.Split(k.Before, "\n") {
		had[line] = true
	}
	for _, line := range strings.Split(strings.TrimRight(k.Want, "\n"), "\n") {
		if !had[line] {
			fmt.Fprintf(w, "    + %s\n", finding.SafeLine(line))
		}
	}
}

// writeDropinNext prints what makes the systemd drop-ins an apply wrote
// (or would write) take effect: tuneloop never reloads or restarts a unit.
func writeDropinNext(w io.Writer, d *apply.Doc, l finding.Lang) {
	var keys []string
	for _, g := range d.Groups {
		if g.State != apply.OpVerified && g.State != apply.StatePlanned {
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

// WriteTransactions is `revert --list`: each transaction of the journal in
// dir, what of it is still in effect, its timer.
func WriteTransactions(w io.Writer, dir string, txs []*apply.Tx, l finding.Lang) {
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	if len(txs) == 0 {
		fmt.Fprintln(w, t("no transactions in", "日志中没有事务："), finding.SafeLine(dir))
	}
	for _, tx := range txs {
		open := 0
		for i := range tx.Keys {
			if tx.Keys[i].Open() {
				open++
			}
		}
		state := t("reverted", "已回退")
		if open > 0 {
			state = finding.Tf(finding.T("in effect: %d of %d keys", "生效中：%d/%d 项"), open, len(tx.Keys)).In(l)
		}
		switch {
		case tx.Deadline.IsZero():
		case tx.Expired:
			state += "; " + t("timer fired: reverted", "计时结束：已回退")
		case tx.Confirmed:
			state += "; " + t("confirmed", "已确认")
		default:
			state += "; " + finding.Tf(finding.T("reverts at %s unless confirmed", "除非确认，将于 %s 回退"), tx.Deadline.Local().Format("15:04:05")).In(l)
		}
		if tx.Persist {
			state += "; " + t("persistence", "持久化")
		}
		if tx.Broken != nil {
			state += "; " + t("journal edited or damaged", "日志被修改或已损坏")
		}
		fmt.Fprintf(w, "%s  %s  %s  %s\n", tx.ID, tx.Began.Local().Format("2006-01-02 15:04:05"), state, finding.SafeLine(strings.Join(tx.Findings, ", ")))
	}
}

// WriteReverted is the answer of `revert`: each key put back (to w) and
// each key that could not be (to ew).
func WriteReverted(w, ew io.Writer, res *apply.RevertResult, l finding.Lang) {
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	for _, r := range res.Reverted {
		if line, ok := dropinRevertLine(r, l); ok {
			fmt.Fprintln(w, line)
			continue
		}
		if r.Already {
			fmt.Fprintf(w, "%s  %s  %s (%s)\n", r.Tx, finding.SafeLine(r.Key.Key), finding.SafeLine(strings.TrimSpace(r.Key.Before)), t("already back", "已是原值"))
			continue
		}
		fmt.Fprintf(w, "%s  %s  %s -> %s\n", r.Tx, finding.SafeLine(r.Key.Key), finding.SafeLine(strings.TrimSpace(r.Now)), finding.SafeLine(strings.TrimSpace(r.To)))
	}
	writeDropinRevertNext(w, res, l)
	if len(res.Reverted) == 0 && len(res.Errs) == 0 {
		fmt.Fprintln(w, t("nothing to revert: every change is already undone", "无需回退：所有修改均已撤销"))
	}
	for _, e := range res.Errs {
		msg := e.Error()
		if de, ok := e.(*apply.DriftError); ok {
			msg = de.Text().In(l)
		}
		fmt.Fprintln(ew, finding.SafeLine(msg))
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
