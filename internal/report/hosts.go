package report

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/multihost"
)

// HostsView is the per-host part of a multi-host run's page: every host
// with its clock alignment, what was lost, its own findings, and its CPU
// and disk on the local timeline.
type HostsView struct {
	Hosts []HostView `json:"hosts"`
	// Cross is the cross-host reading (nil: it does not hold).
	Cross *finding.Finding `json:"cross,omitempty"`
}

// HostView is one host.
type HostView struct {
	Name string `json:"name"`
	Role string `json:"role"`
	// Main: this host's folder gives the run's verdict (the page's top).
	Main    bool   `json:"main,omitempty"`
	Address string `json:"address"`
	Arch    string `json:"arch,omitempty"`
	// Aligned: the clock offset was measured and the series are shifted
	// by it; OffsetMS = remote - local, within ±BoundMS.
	Aligned  bool     `json:"aligned"`
	OffsetMS float64  `json:"offset_ms"`
	BoundMS  float64  `json:"bound_ms"`
	DriftMS  *float64 `json:"drift_ms,omitempty"`
	Files    int      `json:"files"`
	// Lost says what was lost (nil: nothing); Unreadable that its folder
	// could not be read.
	Lost       *finding.Text `json:"lost,omitempty"`
	Unreadable string        `json:"unreadable,omitempty"`
	// Verdict is the host's own root cause (nil: none).
	Verdict  *finding.Finding  `json:"verdict,omitempty"`
	Findings []finding.Finding `json:"findings,omitempty"`
	Series   []HostPoint       `json:"series,omitempty"`
}

// HostPoint is one tick of a host on the local timeline.
type HostPoint struct {
	T      time.Time `json:"t"`
	Busy   float64   `json:"cpu_busy_pct"`
	Iowait float64   `json:"iowait_pct"`
	// DiskUtil is the busiest disk's %util in the tick (Disk names it).
	DiskUtil float64 `json:"disk_util_pct"`
	Disk     string  `json:"disk,omitempty"`
}

// maxHostFindings caps each host's findings on the page.
const maxHostFindings = 8

// NewHosts builds the hosts view of a loaded multi-host run.
func NewHosts(r *multihost.Loaded, lang finding.Lang) *HostsView {
	v := &HostsView{Cross: r.Cross}
	for _, h := range r.Hosts {
		e := h.Entry
		hv := HostView{Name: e.Name, Role: e.Role, Address: e.Address, Arch: e.Arch, Files: e.Files, Lost: e.Lost,
			Aligned: h.Aligned, OffsetMS: msOf(h.Shift), BoundMS: msOf(h.Bound), Main: h == r.App}
		if d, ok := e.Drift(); ok {
			hv.DriftMS = new(msOf(d))
		}
		if h.Err != nil {
			hv.Unreadable = finding.Localize(h.Err, lang)
		}
		if d := h.Decision; d != nil {
			hv.Verdict = d.Verdict
			for _, f := range d.Findings {
				if f.Status != finding.Fail || (d.Verdict != nil && f.Key() == d.Verdict.Key()) {
					continue
				}
				if len(hv.Findings) == maxHostFindings {
					break
				}
				hv.Findings = append(hv.Findings, f)
			}
		}
		if h.Layers != nil && h.Layers.Series != nil {
			for _, tk := range h.Layers.Series.Ticks {
				p := HostPoint{T: tk.T}
				if tk.All != nil {
					p.Busy, p.Iowait = tk.All.Busy(), tk.All.Iowait
				}
				for _, d := range tk.Disks {
					if d.Util > p.DiskUtil {
						p.DiskUtil, p.Disk = d.Util, d.Name
					}
				}
				hv.Series = append(hv.Series, p)
			}
		}
		v.Hosts = append(v.Hosts, hv)
	}
	// The app host first, then by role and name: the reader starts where
	// the verdict is.
	rank := map[string]int{multihost.RoleApp: 0, multihost.RoleDB: 1, multihost.RoleLB: 2, multihost.RoleOther: 3}
	sort.SliceStable(v.Hosts, func(i, j int) bool { return rank[v.Hosts[i].Role] < rank[v.Hosts[j].Role] })
	return v
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ClockMS says a clock offset, bound or drift in milliseconds readably
// (multihost.ClockMS, the one formatter of it).
func ClockMS(ms float64, sign bool) string { return multihost.ClockMS(ms, sign) }

// ClockLine says a host's alignment: "clock +3000.2 ms ±300 µs (shifted
// ...), drift +10 µs over the run" or that it was not measured.
func (h *HostView) ClockLine(l finding.Lang) string {
	if !h.Aligned {
		return finding.T("clock not measured: its times are its own", "时钟未测量：其时间为该主机自身的时间").In(l)
	}
	s := finding.Tf(finding.T("clock %s ±%s (shifted onto this host's timeline)", "时钟偏差 %s ±%s（已移到本机时间轴）"), ClockMS(h.OffsetMS, true), ClockMS(h.BoundMS, false)).In(l)
	if h.DriftMS != nil {
		s += finding.Tf(finding.T(", drift %s over the run", "，运行期间漂移 %s"), ClockMS(*h.DriftMS, true)).In(l)
	}
	return s
}

// writeHostsText prints the hosts of a multi-host run after the run summary.
func writeHostsText(w io.Writer, v *HostsView, l finding.Lang) error {
	if v == nil {
		return nil
	}
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	if c := v.Cross; c != nil {
		fmt.Fprintf(w, "\n%s %s\n", t("ACROSS HOSTS:", "跨主机："), c.Title.In(l))
		for _, e := range c.Evidence {
			fmt.Fprintf(w, "  %s: %s\n", finding.SafeLine(e.Key), finding.SafeLine(e.Value))
		}
	}
	fmt.Fprintf(w, "\n%s\n", t("Hosts:", "主机："))
	for i := range v.Hosts {
		h := &v.Hosts[i]
		fmt.Fprintf(w, "  %s [%s] %s %s; %s\n", finding.SafeLine(h.Name), h.Role, finding.SafeLine(h.Address), h.Arch, h.ClockLine(l))
		if h.Lost != nil {
			fmt.Fprintf(w, "    %s %s\n", t("LOST:", "丢失："), finding.SafeLine(h.Lost.In(l)))
		}
		if h.Unreadable != "" {
			fmt.Fprintf(w, "    %s %s\n", t("unreadable:", "无法读取："), finding.SafeLine(h.Unreadable))
		}
		if h.Main {
			fmt.Fprintf(w, "    %s\n", t("its verdict and findings are the run's, above", "其结论与发现即上面本次运行的结论与发现"))
			continue
		}
		if h.Verdict != nil {
			fmt.Fprintf(w, "    %s %s\n", t("verdict:", "结论："), finding.SafeLine(h.Verdict.Title.In(l)))
		}
		for _, f := range h.Findings {
			fmt.Fprintf(w, "    [%s] %s  %s\n", f.Severity.Label(l), finding.SafeLine(f.Key()), finding.SafeLine(f.Title.In(l)))
		}
	}
	return nil
}

// writeHostsMarkdown writes the hosts of a multi-host run as a Markdown
// section (appended to the run page's report.md).
func writeHostsMarkdown(w io.Writer, v *HostsView, l finding.Lang) error {
	if v == nil {
		return nil
	}
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	md := finding.SafeMarkdown
	fmt.Fprintf(w, "\n## %s\n\n", t("Hosts (one timeline)", "主机（同一时间轴）"))
	if c := v.Cross; c != nil {
		fmt.Fprintf(w, "**%s** %s\n\n", t("Across hosts:", "跨主机："), md(c.Title.In(l)))
		for _, e := range c.Evidence {
			fmt.Fprintf(w, "- %s: %s (%s)\n", md(e.Key), md(e.Value), md(e.Source))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n|---|---|---|---|---|\n", t("host", "主机"), t("role", "角色"), t("address", "地址"), t("arch", "架构"), t("clock (remote − here)", "时钟（远端 − 本机）"))
	for i := range v.Hosts {
		h := &v.Hosts[i]
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", md(h.Name), md(h.Role), md(h.Address), md(h.Arch), md(h.ClockLine(l)))
	}
	for i := range v.Hosts {
		h := &v.Hosts[i]
		fmt.Fprintf(w, "\n### %s (%s)\n\n", md(h.Name), md(h.Role))
		if h.Lost != nil {
			fmt.Fprintf(w, "**%s** %s\n\n", t("LOST:", "丢失："), md(h.Lost.In(l)))
		}
		if h.Unreadable != "" {
			fmt.Fprintf(w, "**%s** %s\n\n", t("unreadable:", "无法读取："), md(h.Unreadable))
		}
		if h.Main {
			fmt.Fprintf(w, "%s\n", t("Its verdict and findings are the run's, above.", "其结论与发现即上面本次运行的结论与发现。"))
			continue
		}
		if h.Verdict != nil {
			fmt.Fprintf(w, "%s %s\n\n", t("Verdict:", "结论："), md(h.Verdict.Title.In(l)))
		}
		for _, f := range h.Findings {
			fmt.Fprintf(w, "- **%s** `%s` %s\n", f.Severity.Label(l), md(f.Key()), md(f.Title.In(l)))
		}
	}
	return nil
}
