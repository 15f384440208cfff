package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/jvm/inspect"
	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
	"github.com/tuneloop/tuneloop/internal/jvm/logconf"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/units"
)

// JVM is the document of `tuneloop jvm PID`: the inspection, and how much
// of it the text shows (every flag, where raw outputs went). Its JSON is
// the inspection alone.
type JVM struct {
	Result   *inspect.Result
	AllFlags bool   // list every flag under the summary line
	RawDir   string // where --raw saved the raw outputs
}

// JVMFormats are WriteJVM's and WriteJVMList's.
func JVMFormats() Formats { return TextJSON() }

// WriteJVM writes the inspection in f (JVMFormats), its one switch.
func WriteJVM(w io.Writer, d *JVM, f Format, l finding.Lang) error {
	if f == JSON {
		return WriteJSON(w, d.Result)
	}
	return writeJVMText(w, d, l)
}

// writeJVMText is the inspection as a person reads it.
func writeJVMText(w io.Writer, d *JVM, lang finding.Lang) error {
	res := d.Result
	t := func(en, zh string) string { return finding.T(en, zh).In(lang) }
	fmt.Fprintf(w, "JVM %d", res.PID)
	if res.NSPID != 0 {
		fmt.Fprintf(w, " (%s %d)", t("pid in its namespace", "命名空间内 pid"), res.NSPID)
	}
	fmt.Fprintf(w, ", %s %s: %s\n", t("user", "用户"), res.User, res.Version)
	started := t("listener was running", "attach 监听已在运行")
	if res.Started {
		started = t("listener started by SIGQUIT", "通过 SIGQUIT 启动了 attach 监听")
	}
	fmt.Fprintf(w, "%s %.1f ms %s %s (%s)\n", t("attached in", "attach 用时"), res.AttachMS, t("via", "方式"), res.Via, started)
	if res.Flags != nil {
		fmt.Fprintf(w, "%s: %s\n", t("Flags", "参数"), flagSummary(res.Flags, lang))
		if d.AllFlags {
			for _, f := range strings.Fields(res.FlagLine) {
				fmt.Fprintf(w, "  %s\n", f)
			}
		}
	}
	if res.JCmd != "" {
		fmt.Fprintf(w, "\n== %s\n%s", res.JCmd, res.JCmdOut)
		if !strings.HasSuffix(res.JCmdOut, "\n") {
			fmt.Fprintln(w)
		}
	}
	for _, e := range res.Errors {
		fmt.Fprintf(w, "%s: %s\n", t("error", "错误"), e)
	}
	if len(res.Config) > 0 {
		fmt.Fprintf(w, "\n== %s\n", t("Configuration checks (tuneloop check, jvm.*)", "配置检查（tuneloop check 的 jvm.* 规则）"))
		WriteJVMChecks(w, res.Config, lang)
	}
	for _, l := range res.Logging {
		fmt.Fprintf(w, "\n== %s: %s (%s)\n", t("Logging configuration", "日志配置"), l.Path, l.From)
		switch {
		case l.Error != "":
			fmt.Fprintf(w, "  %s\n", l.Error)
		case len(l.Findings) == 0:
			fmt.Fprintf(w, "  %s\n", t("no logging problems found", "未发现日志配置问题"))
		default:
			if err := logconf.WriteText(w, l.Path, l.Findings, lang); err != nil {
				return err
			}
		}
	}
	if res.Set != nil && len(res.Set.Reports)+len(res.Set.Unreadable) > 0 {
		fmt.Fprintln(w)
		if err := threaddump.WriteText(w, res.Set, lang); err != nil {
			return err
		}
	}
	if res.Heap != "" {
		fmt.Fprintf(w, "\n== %s (GC.heap_info)\n%s", t("Heap", "堆"), strings.TrimLeft(res.Heap, "\n"))
	}
	if res.Props != "" {
		fmt.Fprintf(w, "\n== %s (VM.system_properties)\n%s", t("System properties", "系统属性"), res.Props)
	}
	if g := res.GCLog; g != nil {
		fmt.Fprintln(w)
		if g.Enabled {
			fmt.Fprintf(w, "%s %s\n", t("GC logging switched on, writing to", "已开启 GC 日志，写入"), g.File)
			undo := fmt.Sprintf("VM.log output=#%d what=all=off", g.Index)
			fmt.Fprintf(w, "  %s: tuneloop jvm %d --jcmd '%s'  (%s: jcmd %d %s)\n", t("to undo", "撤销"), res.PID, undo,
				t("or", "或"), res.PID, undo)
		} else {
			fmt.Fprintf(w, "%s %s %s\n", t("GC logging was already on, writing to", "GC 日志已开启，写入"), g.File, t("(nothing changed)", "（未做更改）"))
		}
		if res.GCLogAt != "" {
			fmt.Fprintf(w, "  %s: %s\n", t("from this host", "在本机的路径"), res.GCLogAt)
		}
	}
	if len(res.Raw) > 0 {
		fmt.Fprintf(w, "\n%s: %s\n", t("Raw outputs saved in", "原始输出已保存到"), d.RawDir)
	}
	return nil
}

// flagSummary is one line from VM.flags: collector, heap, and the flags
// that most often explain a performance problem.
func flagSummary(f *jvmopts.Options, lang finding.Lang) string {
	var parts []string
	gc := f.GC
	if gc == "" {
		gc = "?"
	}
	parts = append(parts, "GC "+gc)
	if f.XmsBytes > 0 || f.XmxBytes > 0 {
		parts = append(parts, fmt.Sprintf("%s %s, %s %s", finding.T("heap initial", "堆初始").In(lang), jvmMiB(f.XmsBytes),
			finding.T("max", "最大").In(lang), jvmMiB(f.XmxBytes)))
	}
	for _, k := range []string{"MaxNewSize", "MaxGCPauseMillis", "ParallelGCThreads", "ConcGCThreads", "MaxMetaspaceSize",
		"ReservedCodeCacheSize", "ThreadStackSize", "MaxDirectMemorySize", "ActiveProcessorCount"} {
		if v, ok := f.Values[k]; ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && strings.HasSuffix(k, "Size") && k != "ThreadStackSize" {
				v = jvmMiB(n)
			}
			parts = append(parts, k+"="+v)
		}
	}
	for _, k := range []string{"AlwaysPreTouch", "UseLargePages", "UseTransparentHugePages", "UseNUMA", "UseStringDeduplication",
		"HeapDumpOnOutOfMemoryError", "ExitOnOutOfMemoryError", "DisableExplicitGC"} {
		if v, ok := f.Bools[k]; ok && v {
			parts = append(parts, "+"+k)
		}
	}
	parts = append(parts, fmt.Sprintf("%d %s", len(f.Values)+len(f.Bools), finding.T("flags set", "个已设置参数").In(lang)))
	return strings.Join(parts, ", ")
}

func jvmMiB(n int64) string {
	if n <= 0 {
		return "?"
	}
	return units.FormatBytesScaled(float64(n), 1)
}

// WriteJVMList writes the JVMs of this host (attach.List) in f
// (JVMFormats).
func WriteJVMList(w io.Writer, ps []attach.Process, f Format, lang finding.Lang) error {
	if f == JSON {
		if ps == nil {
			ps = []attach.Process{}
		}
		return WriteJSON(w, ps)
	}
	if len(ps) == 0 {
		fmt.Fprintln(w, finding.T("no JVM found on this host (as root, every process is seen)",
			"本机未发现 JVM（以 root 运行可看到所有进程）").In(lang))
		return nil
	}
	tw := finding.NewTable(w, 2, false) // by display width: zh headers, names
	fmt.Fprintln(tw, finding.T("PID\tUSER\tVERSION\tVM\tMAIN\tNOTES", "PID\t用户\t版本\tVM\t主类\t备注").In(lang))
	for _, p := range ps {
		var notes []string
		if p.Container {
			notes = append(notes, fmt.Sprintf("%s %d", finding.T("container, pid inside", "容器内，内部 pid").In(lang), jvmNonZero(p.NSPID, p.PID)))
		}
		if p.AttachDisabled {
			notes = append(notes, finding.T("attach disabled", "attach 已禁用").In(lang))
		}
		if p.Listening {
			notes = append(notes, finding.T("attach listener running", "attach 监听运行中").In(lang))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", p.PID, p.User, jvmDash(p.Version), jvmDash(p.VM), jvmDash(p.Main), strings.Join(notes, "; "))
	}
	return tw.Flush()
}

func jvmNonZero(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func jvmDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteJVMChecks prints the failed jvm.* checks compactly: what was
// seen, what to do, the literal change.
func WriteJVMChecks(w io.Writer, fs []finding.Finding, l finding.Lang) {
	fails := 0
	for i := range fs {
		f := &fs[i]
		if f.Status != finding.Fail {
			continue
		}
		fails++
		fmt.Fprintf(w, "\n[%s] %s  %s\n", strings.ToUpper(f.Severity.Label(l)), f.ID, f.Title.In(l))
		fmt.Fprintf(w, "  %s\n", f.Observed.In(l))
		if rec := f.Recommended.In(l); rec != "" {
			fmt.Fprintf(w, "  -> %s\n", rec)
		}
		for _, line := range strings.Split(f.Fix.Apply, "\n") {
			if line != "" {
				fmt.Fprintf(w, "     %s\n", finding.SafeLine(line))
			}
		}
	}
	if fails == 0 {
		fmt.Fprintf(w, "%s\n", finding.T("No problem found in the JVM options.", "JVM 参数未发现问题。").In(l))
	}
}
