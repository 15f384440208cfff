package cli

import (
	"context"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/session"
)

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
	journalFlag(f, &o.Journal)
	f.StringVar(&o.Persist, "persist", "", helpText(finding.T("write the sysctls of transaction TX-ID to /etc/sysctl.d/90-tuneloop.conf and its process limits to a systemd drop-in (its own transaction)", "把事务 TX-ID 的 sysctl 写入 /etc/sysctl.d/90-tuneloop.conf，进程资源限制写入 systemd drop-in（作为独立事务）")))
	f.StringVar(&o.Unit, "unit", "", helpText(finding.T("--persist: the systemd service whose drop-in gets the process limits (default: the one in the process's cgroup)", "--persist：写入进程资源限制 drop-in 的 systemd 服务（默认取进程 cgroup 中的服务）")))
	f.StringVar(&o.Confirm, "confirm", "", helpText(finding.T("keep transaction TX-ID: stop its dead-man timer", "保留事务 TX-ID：停止其自动回退计时器")))
	f.DurationVar(&o.ConfirmWithin, "confirm-within", 0, helpText(finding.T("revert by itself unless confirmed within this time (e.g. 2m)", "除非在该时间内确认，否则自动回退（例如 2m）")))
	f.StringVar(&o.Profile, "profile", string(rules.JavaWeb), helpText(finding.T("workload profile: java-web, database or latency", "负载配置档：java-web、database 或 latency")))
	langFlag(f, &o.Lang)
	outputFlag(f, &o.Output, report.ApplyFormats())
	o.hostRoots().flags(f)
	return cmd
}

// hostRoots are apply's --proc-root, --sys-root, --etc-root and --root.
func (o *ApplyOptions) hostRoots() hostRoots {
	return hostRoots{Proc: &o.ProcRoot, Sys: &o.SysRoot, Etc: &o.EtcRoot, Root: &o.Root}
}

func (o *ApplyOptions) roots() hostfs.FS { return o.hostRoots().fs() }

func journalOf(env *Env, dir string) *apply.Journal {
	if dir == "" {
		dir = apply.DefaultDir(env.Getenv)
	}
	return &apply.Journal{Dir: dir}
}

// RunApply is the whole `apply` command; tests call it directly.
func RunApply(ctx context.Context, env *Env, o *ApplyOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	env.useLang(lang)
	format, err := outputFormat(o.Output, report.ApplyFormats())
	if err != nil {
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
		return report.WriteApply(env.Stdout, &apply.Doc{Journal: j.Dir, Confirmed: o.Confirm}, format, lang)
	}
	if o.ConfirmWithin < 0 || (o.ConfirmWithin > 0 && o.ConfirmWithin < time.Second) {
		return usageErr(finding.T("--confirm-within: want at least 1s, got %s", "--confirm-within：至少 1s，实际为 %s"), o.ConfirmWithin)
	}
	if err := o.hostRoots().check(); err != nil {
		return err
	}
	var profile rules.Profile
	if o.Persist == "" && o.From == "" { // a live audit
		if profile, err = profileOpt(o.Profile); err != nil {
			return err
		}
	}
	req := apply.Request{IDs: o.IDs, AllSafe: o.AllSafe, Findings: session.ApplyFindings(o.From, profile, o.roots()), Roots: o.roots(),
		Persist: o.Persist, Unit: o.Unit, Yes: o.Yes, ConfirmWithin: o.ConfirmWithin, Exe: o.Exe}
	doc, applyErr := apply.Execute(ctx, j, req)
	if doc == nil {
		return applyErr
	}
	if err := report.WriteApply(env.Stdout, doc, format, lang); err != nil {
		return err
	}
	if applyErr != nil {
		return applyErr
	}
	if o.Yes && doc.Undone() {
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("some changes did not hold and were undone", "部分修改未生效，已撤销"))}
	}
	return ctx.Err()
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
	journalFlag(f, &o.Journal)
	langFlag(f, &o.Lang)
	return cmd
}

// RunRevert is the whole `revert` command; tests call it directly.
func RunRevert(ctx context.Context, env *Env, o *RevertOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	env.useLang(lang)
	j := journalOf(env, o.Journal)
	if o.List {
		txs, err := apply.Status(j)
		if err != nil {
			return err
		}
		report.WriteTransactions(env.Stdout, j.Dir, txs, lang)
		return nil
	}
	if (o.TxID == "") == !o.All {
		return usageErr(finding.T("name a transaction (TX-ID) or --all; see tuneloop revert --list", "请指定一个事务（TX-ID）或 --all；见 tuneloop revert --list"))
	}
	res, err := apply.Revert(j, apply.RevertOptions{TxID: o.TxID, All: o.All, Force: o.Force})
	if err != nil {
		return err
	}
	report.WriteReverted(env.Stdout, env.Stderr, res, lang)
	if len(res.Errs) > 0 {
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("%d key(s) not reverted", "%d 项未回退"), len(res.Errs))}
	}
	return ctx.Err()
}

// newWatchdogCmd is the dead-man timer's body, started detached by apply.
func newWatchdogCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:    apply.WatchdogCmd + " JOURNAL TX-ID DEADLINE",
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
