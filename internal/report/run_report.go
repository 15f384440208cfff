package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/units"
)

// RunSchema names the JSON document `tuneloop record` / `analyze RUN_DIR`
// print with --output json.
const RunSchema = "tuneloop.run-report/v1"

// RunSummary is the report of one recorded run.
type RunSummary struct {
	Schema      string    `json:"schema"`
	Tool        Tool      `json:"tool"`
	GeneratedAt time.Time `json:"generated_at"`
	Dir         string    `json:"dir"`
	ID          string    `json:"id"`
	// Status is the manifest's: recording (incomplete: the recorder was
	// killed), complete or interrupted.
	Status     string    `json:"status"`
	Incomplete bool      `json:"incomplete"`
	Reason     string    `json:"reason,omitempty"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end,omitzero"`
	Command    string    `json:"command"`
	IntervalMS int64     `json:"interval_ms"`
	TargetPID  int       `json:"target_pid,omitempty"`
	TargetComm string    `json:"target_comm,omitempty"`
	Host       Host      `json:"host"`
	// BadLines counts sample lines that could not be read.
	BadLines int            `json:"bad_lines,omitempty"`
	Stats    diagnose.Stats `json:"stats"`
	// CostCPUPct and CostMaxRSSKB are what recording cost (0 when unknown).
	CostCPUPct   float64           `json:"cost_cpu_pct,omitempty"`
	CostMaxRSSKB int64             `json:"cost_max_rss_kb,omitempty"`
	Summary      finding.Counts    `json:"summary"`
	Findings     []finding.Finding `json:"findings"`

	// CostGenerator is the load generator's own CPU (run only);
	// CostInTarget what JFR and attach cost inside the target JVM.
	CostGenerator *runfolder.GeneratorCost `json:"cost_generator,omitempty"`
	CostInTarget  *runfolder.TargetCost    `json:"cost_in_target,omitempty"`
}

// writeRunSummaryJSON writes the run's summary as indented JSON (the
// run-report/v1 document of a brief).
func writeRunSummaryJSON(w io.Writer, r *RunSummary) error {
	if r.Findings == nil {
		r.Findings = []finding.Finding{}
	}
	r.Summary = countFindings(r.Findings)
	return WriteJSON(w, r)
}

// writeRunSummaryText renders the run's summary for a terminal (a brief's
// text): what was recorded, the run-wide CPU split and hottest threads,
// then the ranked findings.
// Strings from the manifest (ID, command line, target comm, thread names)
// pass finding.SafeLine (oneLine) before they reach the terminal.
func writeRunSummaryText(w io.Writer, r *RunSummary, l finding.Lang) error {
	bw := bufio.NewWriter(w)
	T := func(en, zh string) string { return finding.T(en, zh).In(l) }
	fmt.Fprintf(bw, "%s %s — %s\n", T("tuneloop run", "tuneloop 运行记录"), finding.SafeOneLine(r.ID), finding.SafeOneLine(r.Host.Line(l)))
	span := r.Start.UTC().Format("2006-01-02 15:04:05")
	if !r.End.IsZero() {
		span += " – " + r.End.UTC().Format("15:04:05") + " UTC"
	} else {
		span += " UTC"
	}
	status := r.Status
	if l == finding.ZH {
		status = map[string]string{"recording": "recording（记录中断，不完整）", "complete": "complete（完成）", "interrupted": "interrupted（提前结束）"}[r.Status]
		if status == "" {
			status = r.Status
		}
	}
	fmt.Fprintf(bw, "%s %s · %s · %s %s\n", T("folder", "目录"), finding.SafeOneLine(r.Dir), span, T("status", "状态"), finding.SafeOneLine(status))
	if r.Incomplete {
		fmt.Fprintf(bw, "%s\n", T("INCOMPLETE: the recorder stopped without finishing (killed?); diagnosing the samples that were saved.",
			"不完整：记录进程未正常结束（被杀？）；仅根据已保存的采样诊断。"))
	}
	if r.Reason != "" {
		fmt.Fprintf(bw, "%s %s\n", T("ended early:", "提前结束："), finding.SafeOneLine(r.Reason))
	}
	if r.Command != "" {
		fmt.Fprintf(bw, "%s %s\n", T("command:", "命令："), finding.SafeOneLine(r.Command))
	}
	if r.TargetPID != 0 {
		fmt.Fprintf(bw, "%s %s (pid %d)", T("target:", "目标："), finding.SafeOneLine(r.TargetComm), r.TargetPID)
		if r.Stats.ProcCPU >= 0 {
			fmt.Fprintf(bw, T(", %.1f%% of a core on average", "，平均占 %.1f%% 个核"), r.Stats.ProcCPU)
		}
		fmt.Fprintln(bw)
	}
	s := r.Stats
	fmt.Fprintf(bw, T("%d intervals over %.0fs: CPU busy %.1f%% (peak %.1f%%): us %.1f%% sy %.1f%% si+hi %.1f%% wa %.1f%% st %.1f%%\n",
		"%d 个采样区间，共 %.0f 秒：CPU 忙 %.1f%%（峰值 %.1f%%）：us %.1f%% sy %.1f%% si+hi %.1f%% wa %.1f%% st %.1f%%\n"),
		s.Ticks, s.Seconds, s.Busy, s.PeakBusy, s.User, s.System, s.Soft, s.Iowait, s.Steal)
	if len(s.Top) > 0 {
		var parts []string
		for _, t := range s.Top {
			parts = append(parts, fmt.Sprintf("\"%s\" tid=%d nid=0x%x %.1f%%", finding.SafeLine(t.Name), t.TID, t.TID, t.CPUPct))
		}
		fmt.Fprintf(bw, "%s %s\n", T("hottest threads:", "最热线程："), strings.Join(parts, ", "))
	}
	if r.BadLines > 0 {
		fmt.Fprintf(bw, T("%d unreadable sample line(s) skipped\n", "跳过 %d 行无法读取的采样\n"), r.BadLines)
	}
	writeCosts(bw, r, l)
	c := countFindings(r.Findings)
	fmt.Fprintf(bw, T("findings: %d critical, %d warning, %d info\n", "诊断：严重 %d，警告 %d，提示 %d\n"), c.Critical, c.Warning, c.Info)
	for i := range r.Findings {
		f := &r.Findings[i]
		switch f.Status {
		case finding.Fail:
			writeFindingText(bw, f, l)
			if f.Confidence > 0 {
				fmt.Fprintf(bw, "  %s %.0f%%\n", padRight(T("confidence", "置信度")+":", 10), 100*f.Confidence)
			}
		case finding.Unavailable:
			fmt.Fprintf(bw, "\n%s: %s — %s\n", finding.SafeOneLine(f.ID), finding.SafeOneLine(f.Title.In(l)), finding.SafeOneLine(f.Reason.In(l)))
		}
	}
	if c.Fail == 0 {
		fmt.Fprintf(bw, "\n%s\n", T("No bottleneck found in this run: nothing crossed a diagnosis threshold.",
			"本次记录未发现瓶颈：没有指标超过诊断阈值。"))
	}
	return bw.Flush()
}

// CostLine is one cost of measuring, for what it is.
type CostLine struct{ Label, Value finding.Text }

// OtherCosts are the costs of measuring besides the recorder's own: the
// load generator's own CPU (the recorder's taken out of the process's) and
// what JFR and attach cost inside the target, with the evidence behind it.
func (r *RunSummary) OtherCosts() []CostLine {
	var out []CostLine
	if g := r.CostGenerator; g != nil && g.Engine == "jmeter" {
		out = append(out, CostLine{finding.T("JMeter's CPU (the load engine)", "JMeter 的 CPU（负载引擎）"),
			finding.Tf(finding.T("%.1f%% of %d cores (its processes on this host, from /proc)", "%[2]d 个核的 %.1[1]f%%（其在本机上的进程，取自 /proc）"), g.CPUPct, g.Cores)})
	} else if g != nil {
		out = append(out, CostLine{finding.T("load generator's own CPU", "压测端自身 CPU"),
			finding.Tf(finding.T("%.1f%% of %d cores (the process's %.1f%% less the recorder's %.2f%% of one core)",
				"%[2]d 个核的 %.1[1]f%%（进程总计 %.1[3]f%% 减去记录器的 %.2[4]f%% 个核）"), g.CPUPct, g.Cores, g.ProcessCPUPct, r.CostCPUPct)})
	}
	if c := r.CostInTarget; c != nil {
		out = append(out, CostLine{finding.T("JFR and attach in the service", "服务内的 JFR 与 attach"),
			finding.Tf(finding.T("%.2f%% of one core (%d ms CPU over %.0f s; %d per-thread samples of %s)",
				"%.2f%% 个核（%.0[3]f 秒内 CPU %[2]d ms；%[4]d 次逐线程采样：%[5]s）"),
				c.PctOfCore, c.CPUMS, c.Seconds, c.Samples, finding.SafeLine(strings.Join(c.Threads, ", ")))})
	}
	return out
}

// writeCosts writes each cost of measuring on a line of its own: the
// recorder's, the load generator's, JFR and attach in the target.
func writeCosts(w io.Writer, r *RunSummary, l finding.Lang) {
	if r.CostCPUPct > 0 || r.CostMaxRSSKB > 0 {
		fmt.Fprintf(w, finding.T("recording cost: %.2f%% of one core, %s peak RSS\n", "记录开销：%.2f%% 个核，峰值 RSS %s\n").In(l),
			r.CostCPUPct, units.FormatMiB(float64(r.CostMaxRSSKB)/1024, 1))
	}
	for _, c := range r.OtherCosts() {
		fmt.Fprintf(w, "%s%s%s\n", c.Label.In(l), finding.T(": ", "：").In(l), c.Value.In(l))
	}
}
