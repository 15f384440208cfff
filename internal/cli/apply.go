package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// watchdogCmd is the hidden subcommand the dead-man timer runs detached.
const watchdogCmd = "__apply-watchdog"

// ApplyOptions are the flags of `tuneloop apply`.
type ApplyOptions struct {
	IDs           []string
	From          string // a run folder: its check.json instead of a live audit
	AllSafe       bool
	Yes           bool
	Journal       string
	Persist       string // TX-ID: write its sysctls to sysctl.d and limits to a drop-in, as a transaction of its own
	Unit          string // --persist: the systemd unit of the limits' drop-in ("": from the cgroup)
	Confirm       string // TX-ID: answer its dead-man timer
	ConfirmWithin time.Duration
	Profile       string
	Lang          string
	Output        string
	ProcRoot      string
	SysRoot       string
	EtcRoot       string
	Root          string
	// Exe is our own binary, for the watchdog ("" = os.Executable).
	Exe string
}

func newApplyCmd(env *Env) *cobra.Command {
	o := &ApplyOptions{}
	cmd := &cobra.Command{
		Use:   "apply [FINDING-ID...]",
		Short: helpText(finding.T("Apply the fixes of findings through a crash-safe journal (dry run unless --yes)", "通过防崩溃的日志应用发现的修复（不加 --yes 时只演练）")),
		Long: helpText(finding.T(
			`Apply the fix of each named finding (a rule ID, or ID/subject for one NIC, disk
or JVM) from a live audit of this host, or from a run folder's check.json with
--from. --all-safe takes every failing finding whose fix is a runtime knob
(sysctl, sysfs, process limit). Without --yes nothing changes: the command
prints each key with its current and new value.

Each key is journaled before it is written (value before, value to write,
value read back); a change that does not read back as written is undone at
once. The findings applied together are one transaction: tuneloop revert
TX-ID undoes it. --persist TX-ID writes its sysctls to
/etc/sysctl.d/90-tuneloop.conf and its process limits to a drop-in of the
service's systemd unit (the process's cgroup names it, or --unit), as a
transaction of its own; systemd reads the drop-in at the service's next start.
--confirm-within starts a detached timer that reverts the transaction unless
tuneloop apply --confirm TX-ID arrives in time.`,
			`应用每个指定发现的修复（规则 ID，或用 ID/对象 指定某块网卡、某个磁盘或某个 JVM），
发现来自对本机的实时审计，或用 --from 取自运行目录中的 check.json。--all-safe 选取
所有修复方式为运行时参数（sysctl、sysfs、进程资源限制）的未通过发现。不加 --yes
时不做任何修改：只列出每个参数的当前值和新值。

每个参数在写入前先记入日志（原值、要写入的值、写入后回读的值）；回读与写入不一致
的修改会立即撤销。一起应用的发现构成一个事务：tuneloop revert TX-ID 可将其撤销。
--persist TX-ID 把该事务的 sysctl 写入 /etc/sysctl.d/90-tuneloop.conf，把进程资源限制
写入该服务 systemd 单元的 drop-in（单元取自进程的 cgroup，或用 --unit 指定），作为一个
独立的事务；systemd 在服务下次启动时读取 drop-in。--confirm-within 启动一个独立运行的计时器：除非及时收到
tuneloop apply --confirm TX-ID，否则自动回退该事务。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop apply net.socket-buffers mem.thp.enabled          # dry run
  tuneloop apply --all-safe --yes --confirm-within 2m
  tuneloop apply --confirm 20261125-174831-3f2a
  tuneloop apply --from runs/20261125-1200 nic.irq.concentration --yes
  tuneloop apply --persist 20261125-174831-3f2a`,
			`  tuneloop apply net.socket-buffers mem.thp.enabled          # 演练
  tuneloop apply --all-safe --yes --confirm-within 2m
  tuneloop apply --confirm 20261125-174831-3f2a
  tuneloop apply --from runs/20261125-1200 nic.irq.concentration --yes
  tuneloop apply --persist 20261125-174831-3f2a`,
		)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.IDs = args
			return RunApply(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.From, "from", "", helpText(finding.T("take the findings from this run folder's check.json", "从该运行目录的 check.json 中读取发现")))
	f.BoolVar(&o.AllSafe, "all-safe", false, helpText(finding.T("apply every failing finding whose fix is a runtime knob (sysctl, sysfs, process limit)", "应用所有修复方式为运行时参数（sysctl、sysfs、进程资源限制）的未通过发现")))
	f.BoolVar(&o.Yes, "yes", false, helpText(finding.T("apply (without it: a dry run)", "执行修改（不加时只演练）")))
	f.StringVar(&o.Journal, "journal", "", helpText(finding.T("journal directory (default /var/lib/tuneloop/journal, or $XDG_STATE_HOME/tuneloop/journal when not root)", "日志目录（默认 /var/lib/tuneloop/journal；非 root 用户为 $XDG_STATE_HOME/tuneloop/journal）")))
	f.StringVar(&o.Persist, "persist", "", helpText(finding.T("write the sysctls of transaction TX-ID to /etc/sysctl.d/90-tuneloop.conf and its process limits to a systemd drop-in (its own transaction)", "把事务 TX-ID 的 sysctl 写入 /etc/sysctl.d/90-tuneloop.conf，进程资源限制写入 systemd drop-in（作为独立事务）")))
	f.StringVar(&o.Unit, "unit", "", helpText(finding.T("--persist: the systemd service whose drop-in gets the process limits (default: the one in the process's cgroup)", "--persist：写入进程资源限制 drop-in 的 systemd 服务（默认取进程 cgroup 中的服务）")))
	f.StringVar(&o.Confirm, "confirm", "", helpText(finding.T("keep transaction TX-ID: stop its dead-man timer", "保留事务 TX-ID：停止其自动回退计时器")))
	f.DurationVar(&o.ConfirmWithin, "confirm-within", 0, helpText(finding.T("revert by itself unless confirmed within this time (e.g. 2m)", "除非在该时间内确认，否则自动回退（例如 2m）")))
	f.StringVar(&o.Profile, "profile", string(rules.JavaWeb), helpText(finding.T("workload profile: java-web, database or latency", "负载配置档：java-web、database 或 latency")))
	f.StringVar(&o.Lang, "lang", "", helpText(finding.T("language: en or zh (default from LANG)", "语言：en 或 zh（默认取自 LANG）")))
	f.StringVarP(&o.Output, "output", "o", "text", helpText(finding.T("output format: text or json", "输出格式：text 或 json")))
	f.StringVar(&o.ProcRoot, "proc-root", "/proc", helpText(finding.T("where /proc is mounted (a captured tree in tests)", "/proc 的挂载位置（测试中为采集下来的目录树）")))
	f.StringVar(&o.SysRoot, "sys-root", "/sys", helpText(finding.T("where /sys is mounted", "/sys 的挂载位置")))
	f.StringVar(&o.EtcRoot, "etc-root", "/etc", helpText(finding.T("where /etc is", "/etc 所在位置")))
	f.StringVar(&o.Root, "root", "", helpText(finding.T("a captured host tree holding proc/, sys/ and etc/ (overrides the three roots)", "采集下来的主机目录树，内含 proc/、sys/ 和 etc/（覆盖上面三个根目录）")))
	return cmd
}

func (o *ApplyOptions) roots() hostfs.FS {
	if o.Root != "" {
		return hostfs.Under(o.Root)
	}
	return hostfs.FS{Proc: o.ProcRoot, Sys: o.SysRoot, Etc: o.EtcRoot}
}

func journalOf(env *Env, dir string) *apply.Journal {
	if dir == "" {
		dir = apply.DefaultDir(env.Getenv)
	}
	return &apply.Journal{Dir: dir}
}

// applyDoc is the JSON answer of apply.
type applyDoc struct {
	DryRun  bool            `json:"dry_run"`
	TxID    string          `json:"tx,omitempty"`
	Journal string          `json:"journal"`
	Groups  []applyGroupDoc `json:"groups"`
	Refused []apply.Refusal `json:"refused,omitempty"`
	Confirm string          `json:"confirm_by,omitempty"`
}

type applyGroupDoc struct {
	Finding string        `json:"finding"`
	Keys    []applyKeyDoc `json:"keys"`
	Same    int           `json:"unchanged,omitempty"`
	Error   string        `json:"error,omitempty"`
	State   string        `json:"state"` // planned, verified, undone, refused, unchanged
	// Conflicts: who else sets these keys (sysctl.d, TuneD).
	Conflicts []finding.Text `json:"conflicts,omitempty"`
}

type applyKeyDoc struct {
	Kind   string `json:"kind"`
	Key    string `json:"key"`
	Before string `json:"before"`
	Want   string `json:"value"`
	After  string `json:"after,omitempty"`
	State  string `json:"state,omitempty"`
}

// RunApply is the whole `apply` command; tests call it directly.
func RunApply(ctx context.Context, env *Env, o *ApplyOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	env.useLang(lang)
	if _, err := outputFormat(o.Output, report.TextJSON()); err != nil {
		return err
	}
	j := journalOf(env, o.Journal)
	modes := 0
	for _, set := range []bool{o.Persist != "", o.Confirm != "", len(o.IDs) > 0 || o.AllSafe} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return usageErr(finding.T("name findings to apply (or --all-safe), or one of --persist TX-ID, --confirm TX-ID", "请指定要应用的发现（或 --all-safe），或者 --persist TX-ID、--confirm TX-ID 之一"))
	}
	if o.Confirm != "" {
		if err := apply.Confirm(j, o.Confirm); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s %s\n", finding.T("confirmed: the changes of transaction", "已确认：保留事务").In(lang), o.Confirm)
		return nil
	}
	if o.ConfirmWithin < 0 || (o.ConfirmWithin > 0 && o.ConfirmWithin < time.Second) {
		return usageErr(finding.T("--confirm-within: want at least 1s, got %s", "--confirm-within：至少 1s，实际为 %s"), o.ConfirmWithin)
	}

	var plan *apply.Plan
	var refused []apply.Refusal
	if o.Persist != "" {
		plan, err = apply.PersistPlan(j, o.Persist, o.Unit)
		if err != nil {
			return err
		}
	} else {
		fs, err := o.findings(ctx)
		if err != nil {
			return err
		}
		var groups []apply.Group
		groups, refused = apply.Select(fs, o.IDs, o.AllSafe)
		plan = apply.NewPlan(o.roots(), groups)
	}
	doc := &applyDoc{DryRun: !o.Yes, Journal: j.Dir, Refused: refused}
	for _, g := range plan.Groups {
		gd := applyGroupDoc{Finding: g.Finding, Same: len(g.Same), State: "planned", Conflicts: g.Conflicts}
		for _, s := range g.Steps {
			gd.Keys = append(gd.Keys, applyKeyDoc{Kind: s.Kind, Key: s.Key, Before: s.Before, Want: s.Want})
		}
		if g.Err != nil {
			gd.Error, gd.State = g.Err.Error(), "refused"
		}
		doc.Groups = append(doc.Groups, gd)
	}
	work := 0
	for i, g := range plan.Groups {
		if g.Err == nil && len(g.Steps) > 0 {
			work++
		} else if g.Err == nil {
			doc.Groups[i].State = "unchanged"
		}
	}
	var applyErr error
	if o.Yes && work > 0 {
		res, err := apply.Apply(j, plan, apply.Options{})
		if err != nil && res == nil {
			applyErr = err
		} else {
			applyErr = err
			doc.TxID = res.TxID
			for i, g := range res.Groups {
				gd := &doc.Groups[i]
				switch {
				case g.Err != nil && len(g.Steps) > 0:
					gd.State, gd.Error = apply.OpUndone, g.Err.Error()
				case g.Err != nil:
					gd.State, gd.Error = "refused", g.Err.Error()
				case len(g.Steps) > 0:
					gd.State = apply.OpVerified
				default:
					gd.State = "unchanged"
				}
				if len(g.Steps) > 0 {
					gd.Keys = gd.Keys[:0]
					for _, s := range g.Steps {
						gd.Keys = append(gd.Keys, applyKeyDoc{Kind: s.Kind, Key: s.Key, Before: s.Before, Want: s.Want, After: s.After, State: s.State})
					}
				}
			}
			if o.ConfirmWithin > 0 && res.TxID != "" && res.Applied() > 0 {
				deadline := time.Now().Add(o.ConfirmWithin)
				exe := o.Exe
				if exe == "" {
					if exe, err = os.Executable(); err != nil {
						return fmt.Errorf("dead-man timer: %w", err)
					}
				}
				jdir, _ := filepath.Abs(j.Dir)
				argv := []string{exe, watchdogCmd, jdir, res.TxID, strconv.FormatInt(deadline.UnixNano(), 10)}
				if err := apply.Arm(j, res.TxID, deadline, func() (int, error) { return apply.StartWatchdog(argv) }); err != nil {
					// The changes are in; without a timer they must not stay unguarded.
					rr, rerr := apply.Revert(j, apply.RevertOptions{TxID: res.TxID})
					if rerr == nil && len(rr.Errs) == 0 {
						return fmt.Errorf("dead-man timer could not start (%v): transaction %s reverted", err, res.TxID)
					}
					return fmt.Errorf("dead-man timer could not start (%v): run tuneloop revert %s", err, res.TxID)
				}
				doc.Confirm = deadline.UTC().Format(time.RFC3339)
			}
		}
	}
	if o.Output == "json" {
		if err := report.WriteJSON(env.Stdout, doc); err != nil {
			return err
		}
	} else {
		writeApplyText(env.Stdout, doc, lang)
	}
	if applyErr != nil {
		return applyErr
	}
	if o.Yes {
		for _, g := range doc.Groups {
			if g.State == apply.OpUndone {
				return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("some changes did not hold and were undone", "部分修改未生效，已撤销"))}
			}
		}
	}
	return ctx.Err()
}

// maxCheckJSON caps a run's check.json (the host audit: tens of KB).
const maxCheckJSON = 64 << 20

// findings come from a live audit (as `check` runs it) or a run's check.json.
// The run folder may come from anyone: check.json is read as untrusted (no
// link followed, no FIFO or device, a size cap), as verdict reads it.
func (o *ApplyOptions) findings(ctx context.Context) ([]finding.Finding, error) {
	if o.From != "" {
		b, err := runfolder.ReadInside(o.From, verdict.CheckFile, maxCheckJSON)
		if err != nil {
			return nil, fmt.Errorf("--from: %w", runfolder.Refusal(err))
		}
		var fs []finding.Finding
		if err := json.Unmarshal(b, &fs); err != nil {
			return nil, fmt.Errorf("--from: %s: %w", filepath.Join(o.From, verdict.CheckFile), err)
		}
		return fs, nil
	}
	profile, err := rules.ParseProfile(o.Profile)
	if err != nil {
		return nil, usageErr(finding.T("--profile: %v", "--profile：%v"), err)
	}
	kb := rules.All()
	if err := rules.Validate(kb); err != nil {
		return nil, err
	}
	facts := sysinfo.Collect(o.roots(), sysinfo.Options{Now: time.Now})
	return rules.Evaluate(kb, facts, profile), ctx.Err()
}

func writeApplyText(w io.Writer, d *applyDoc, l finding.Lang) {
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
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
		state := map[string]finding.Text{
			"planned": finding.T("would change", "将修改"), apply.OpVerified: finding.T("applied, read back", "已应用并回读确认"),
			apply.OpUndone: finding.T("did not hold: undone", "未生效：已撤销"), "refused": finding.T("cannot be applied", "无法应用"),
			"unchanged": finding.T("already set", "已是目标值"),
		}[g.State]
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

// RevertOptions are the flags of `tuneloop revert`.
type RevertOptions struct {
	TxID    string
	All     bool
	Force   bool
	List    bool
	Journal string
	Lang    string
}

func newRevertCmd(env *Env) *cobra.Command {
	o := &RevertOptions{}
	cmd := &cobra.Command{
		Use:   "revert [TX-ID | --all]",
		Short: helpText(finding.T("Undo the changes of tuneloop apply from its journal", "根据日志撤销 tuneloop apply 所做的修改")),
		Long: helpText(finding.T(
			`Put back the value each key had before tuneloop apply changed it, newest
transaction first. A key already back is left alone, so a second revert changes
nothing. A key someone else changed since tuneloop wrote it is not touched
(it is named, with what tuneloop wrote and what it is now) unless --force.`,
			`把每个参数恢复为 tuneloop apply 修改之前的值，最新的事务最先回退。已恢复的参数
保持不动，因此再次回退不会做任何修改。tuneloop 写入之后又被他人修改的参数不会被
触碰（会列出该参数、tuneloop 写入的值及当前值），除非指定 --force。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop revert --list
  tuneloop revert 20261125-174831-3f2a
  tuneloop revert --all --force`,
			`  tuneloop revert --list
  tuneloop revert 20261125-174831-3f2a
  tuneloop revert --all --force`,
		)),
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.TxID = args[0]
			}
			return RunRevert(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.All, "all", false, helpText(finding.T("revert every transaction still in effect", "回退所有仍在生效的事务")))
	f.BoolVar(&o.Force, "force", false, helpText(finding.T("also put back keys someone else changed since", "连同此后被他人修改过的参数一并恢复")))
	f.BoolVar(&o.List, "list", false, helpText(finding.T("list the transactions of the journal and what is still in effect", "列出日志中的事务及仍在生效的修改")))
	f.StringVar(&o.Journal, "journal", "", helpText(finding.T("journal directory (default /var/lib/tuneloop/journal, or $XDG_STATE_HOME/tuneloop/journal when not root)", "日志目录（默认 /var/lib/tuneloop/journal；非 root 用户为 $XDG_STATE_HOME/tuneloop/journal）")))
	f.StringVar(&o.Lang, "lang", "", helpText(finding.T("language: en or zh (default from LANG)", "语言：en 或 zh（默认取自 LANG）")))
	return cmd
}

// RunRevert is the whole `revert` command; tests call it directly.
func RunRevert(ctx context.Context, env *Env, o *RevertOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	env.useLang(lang)
	t := func(en, zh string) string { return finding.T(en, zh).In(lang) }
	j := journalOf(env, o.Journal)
	if o.List {
		txs, err := apply.Status(j)
		if err != nil {
			return err
		}
		if len(txs) == 0 {
			fmt.Fprintln(env.Stdout, t("no transactions in", "日志中没有事务："), finding.SafeLine(j.Dir))
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
				state = finding.Tf(finding.T("in effect: %d of %d keys", "生效中：%d/%d 项"), open, len(tx.Keys)).In(lang)
			}
			switch {
			case tx.Deadline.IsZero():
			case tx.Expired:
				state += "; " + t("timer fired: reverted", "计时结束：已回退")
			case tx.Confirmed:
				state += "; " + t("confirmed", "已确认")
			default:
				state += "; " + finding.Tf(finding.T("reverts at %s unless confirmed", "除非确认，将于 %s 回退"), tx.Deadline.Local().Format("15:04:05")).In(lang)
			}
			if tx.Persist {
				state += "; " + t("persistence", "持久化")
			}
			if tx.Broken != nil {
				state += "; " + t("journal edited or damaged", "日志被修改或已损坏")
			}
			fmt.Fprintf(env.Stdout, "%s  %s  %s  %s\n", tx.ID, tx.Began.Local().Format("2006-01-02 15:04:05"), state, finding.SafeLine(strings.Join(tx.Findings, ", ")))
		}
		return nil
	}
	if (o.TxID == "") == !o.All {
		return usageErr(finding.T("name a transaction (TX-ID) or --all; see tuneloop revert --list", "请指定一个事务（TX-ID）或 --all；见 tuneloop revert --list"))
	}
	res, err := apply.Revert(j, apply.RevertOptions{TxID: o.TxID, All: o.All, Force: o.Force})
	if err != nil {
		return err
	}
	changed := 0
	for _, r := range res.Reverted {
		if line, ok := dropinRevertLine(r, lang); ok {
			if !r.Already {
				changed++
			}
			fmt.Fprintln(env.Stdout, line)
			continue
		}
		if r.Already {
			fmt.Fprintf(env.Stdout, "%s  %s  %s (%s)\n", r.Tx, finding.SafeLine(r.Key.Key), finding.SafeLine(strings.TrimSpace(r.Key.Before)), t("already back", "已是原值"))
			continue
		}
		changed++
		fmt.Fprintf(env.Stdout, "%s  %s  %s -> %s\n", r.Tx, finding.SafeLine(r.Key.Key), finding.SafeLine(strings.TrimSpace(r.Now)), finding.SafeLine(strings.TrimSpace(r.To)))
	}
	writeDropinRevertNext(env.Stdout, res, lang)
	if len(res.Reverted) == 0 && len(res.Errs) == 0 {
		fmt.Fprintln(env.Stdout, t("nothing to revert: every change is already undone", "无需回退：所有修改均已撤销"))
	}
	for _, e := range res.Errs {
		msg := e.Error()
		if de, ok := e.(*apply.DriftError); ok {
			msg = de.Text().In(lang)
		}
		fmt.Fprintln(env.Stderr, finding.SafeLine(msg))
	}
	if len(res.Errs) > 0 {
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("%d key(s) not reverted", "%d 项未回退"), len(res.Errs))}
	}
	return ctx.Err()
}

// newWatchdogCmd is the dead-man timer's body, started detached by apply.
func newWatchdogCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:    watchdogCmd + " JOURNAL TX-ID DEADLINE",
		Short:  helpText(finding.T("Internal: the dead-man timer of apply --confirm-within", "内部命令：apply --confirm-within 的自动回退计时器")),
		Hidden: true,
		Args:   cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			ns, err := strconv.ParseInt(args[2], 10, 64)
			if err != nil {
				return usageErr(finding.T("bad deadline %q", "截止时间无效：%q"), args[2])
			}
			// Not the signal context: a SIGTERM must not disarm the timer
			// and leave the changes unguarded.
			_, err = apply.Watch(context.Background(), &apply.Journal{Dir: args[0]}, args[1], time.Unix(0, ns))
			return err
		},
	}
}

// writeFileChange shows a file tuneloop writes as the lines it adds.
func writeFileChange(w io.Writer, k applyKeyDoc) {
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
