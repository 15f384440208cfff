package probe

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/stats"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/units"
)

// Verdicts of a compared figure.
const (
	Better  = "better"
	Worse   = "worse"
	Same    = "no significant change"
	TooFew  = "too few rounds"
	NoValue = "no value"
)

// Comparison sets two probes side by side, figure by figure.
type Comparison struct {
	Schema string       `json:"schema"`
	A      Side         `json:"a"`
	B      Side         `json:"b"`
	Rows   []CompareRow `json:"figures"`
	// Differences are the host settings that differ between the two, and
	// Explain ties figures that got significantly worse to the settings
	// known to move them.
	Differences []FactDiff     `json:"differences,omitempty"`
	Explain     []finding.Text `json:"explain,omitempty"`
	// Checks are the host-level `check` findings (java-web profile) that
	// fail on one side only: what a slower side has that the other has not.
	Checks []CheckDiff `json:"checks,omitempty"`
}

// CheckDiff is a check finding failing on one side of a comparison only.
type CheckDiff struct {
	Side     string           `json:"side"` // "a" or "b"
	ID       string           `json:"id"`
	Subject  string           `json:"subject,omitempty"`
	Severity finding.Severity `json:"severity"`
	Title    finding.Text     `json:"title"`
}

// Side is one probe of a comparison.
type Side struct {
	Label string `json:"label"` // the folder or file it came from
	Host  Host   `json:"host"`
	Start string `json:"start"`
	Quick bool   `json:"quick"`
}

// CompareRow is one figure on both sides: B against A.
type CompareRow struct {
	ID     string       `json:"id"`
	Name   finding.Text `json:"name"`
	Unit   string       `json:"unit"`
	Higher bool         `json:"higher_is_better"`
	A      *Figure      `json:"a,omitempty"`
	B      *Figure      `json:"b,omitempty"`
	// ChangePct is B/A-1 of the rounds' geometric means, LoPct..HiPct its
	// 95% interval (Welch's t on the logs of the rounds).
	ChangePct float64 `json:"change_pct"`
	LoPct     float64 `json:"lo_pct"`
	HiPct     float64 `json:"hi_pct"`
	Verdict   string  `json:"verdict"`
}

// FactDiff is one host setting that differs.
type FactDiff struct {
	What finding.Text `json:"what"`
	A    string       `json:"a"`
	B    string       `json:"b"`
	// Moves lists the figure ID prefixes this setting is known to move.
	Moves []string `json:"moves"`
}

// Compare sets probe b against probe a (a is the reference: "better"
// means b is better).
func Compare(a, b *Result, labelA, labelB string) *Comparison {
	c := &Comparison{Schema: "tuneloop.probe-compare/v1",
		A: Side{Label: labelA, Host: a.Host, Start: a.Start.UTC().Format("2006-01-02 15:04:05Z"), Quick: a.Quick},
		B: Side{Label: labelB, Host: b.Host, Start: b.Start.UTC().Format("2006-01-02 15:04:05Z"), Quick: b.Quick}}
	seen := map[string]bool{}
	var ids []string
	for _, r := range []*Result{a, b} {
		for _, f := range r.Figures {
			if !seen[f.ID] {
				seen[f.ID] = true
				ids = append(ids, f.ID)
			}
		}
	}
	for _, id := range ids {
		fa, fb := a.Figure(id), b.Figure(id)
		row := CompareRow{ID: id, A: fa, B: fb, ChangePct: math.NaN(), LoPct: math.NaN(), HiPct: math.NaN(), Verdict: NoValue}
		ref := fa
		if ref == nil {
			ref = fb
		}
		row.Name, row.Unit, row.Higher = ref.Name, ref.Unit, ref.Higher
		if fa != nil && fb != nil && len(fa.Rounds) > 0 && len(fb.Rounds) > 0 {
			row.Verdict = TooFew
			if e, ok := stats.Compare(each(fa.Rounds), each(fb.Rounds)); ok {
				row.ChangePct = e.ChangePct
				if len(fa.Rounds) >= 2 && len(fb.Rounds) >= 2 {
					row.LoPct, row.HiPct = e.LoPct, e.HiPct
					row.Verdict = Same
					if e.Significant() {
						row.Verdict = Worse
						if (e.ChangePct > 0) == row.Higher {
							row.Verdict = Better
						}
					}
				}
			}
		}
		c.Rows = append(c.Rows, row)
	}
	if a.Facts != nil && b.Facts != nil {
		c.Differences = factDiffs(a.Facts, b.Facts)
		c.Checks = checkDiffs(a.Facts, b.Facts)
	}
	c.Explain = explain(c)
	if ba, bb := a.busy(), b.busy(); ba >= 0 && bb >= 0 && math.Abs(ba-bb) > busyWarnPct {
		c.Explain = append(c.Explain, finding.T(
			fmt.Sprintf("the two probes saw different noise: others kept %.0f%% of the CPUs busy during A and %.0f%% during B; a difference may be the neighbours'", ba, bb),
			fmt.Sprintf("两次探测的噪声不同：A 期间其他进程占用 %.0f%% 的 CPU，B 期间 %.0f%%；差异可能来自邻居", ba, bb)))
	}
	if a.Peer != "" && b.Peer != "" && a.Peer != b.Peer {
		c.Explain = append(c.Explain, finding.T(
			fmt.Sprintf("the network figures were measured against different peers (A: %s, B: %s): a listener in another process, one in the prober's own process and another host are different paths", PeerText(a.Peer).EN, PeerText(b.Peer).EN),
			fmt.Sprintf("两次探测的网络指标所连的对端不同（A：%s，B：%s）：另一进程中的监听、探测进程自身内的监听与另一台主机是不同的路径", PeerText(a.Peer).ZH, PeerText(b.Peer).ZH)))
	}
	for _, t := range []finding.Text{placementDiff(a, b), settingsDiff(a, b)} {
		if !t.IsZero() {
			c.Explain = append(c.Explain, t)
		}
	}
	c.Explain = append(c.Explain, patternDiffs(c.Rows)...)
	return c
}

// Two TCP streams ran in different patterns (see tcpBW) when their
// senders were preempted preemptFactor times as often on one side, or
// their segments were segmentFactor times as large. The patterns are
// 10-25x apart in both (~15,000 against ~600 preemptions a second, ~2.5
// against ~25 KB segments at 64 B on 6.x kernels); 5 and 3 leave room
// for rounds of both in one figure. Below preemptFloor a second on both
// sides the ends hardly contended for a CPU (apart, a sender is preempted
// a few times a second): no pattern from preemptions then.
const (
	preemptFactor = 5
	preemptFloor  = 100
	segmentFactor = 3
)

// patternDiffs says, for each TCP stream that changed significantly, when
// the two sides' streams ran in different patterns: the change may be
// how the receiver ACKed, not what the stack costs.
func patternDiffs(rows []CompareRow) []finding.Text {
	var out []finding.Text
	for _, r := range rows {
		if (r.Verdict != Better && r.Verdict != Worse) || r.A == nil || r.B == nil {
			continue
		}
		pa, pb := readMedian(r.A.Preempt), readMedian(r.B.Preempt)
		sa, sb := readMedian(r.A.Segment), readMedian(r.B.Segment)
		byPre := pa >= 0 && pb >= 0 && max(pa, pb) >= preemptFloor && max(pa, pb) >= preemptFactor*max(min(pa, pb), 1)
		bySeg := sa > 0 && sb > 0 && max(sa, sb) >= segmentFactor*min(sa, sb)
		if !byPre && !bySeg {
			continue
		}
		var en, zh []string
		if pa >= 0 && pb >= 0 {
			en = append(en, fmt.Sprintf("its sending thread was preempted %.0f times a second in A and %.0f in B", pa, pb))
			zh = append(zh, fmt.Sprintf("发送线程每秒被抢占次数 A 为 %.0f，B 为 %.0f", pa, pb))
		}
		if sa > 0 && sb > 0 {
			en = append(en, fmt.Sprintf("its segments averaged %.0f bytes in A and %.0f in B", sa, sb))
			zh = append(zh, fmt.Sprintf("平均报文段 A 为 %.0f 字节，B 为 %.0f 字节", sa, sb))
		}
		out = append(out, finding.T(
			fmt.Sprintf("%s: %s (medians over the rounds): the two streams ran in different patterns. With Nagle on a small write waits for the ACK of what is in flight: a receiver that ACKs at once keeps segments small and is woken (and preempts the sender) at each, one that delays its ACKs (TCP's pingpong mode) lets them grow, which by itself can move small writes by a fifth. The %+.1f%% may be how the receiver ACKed (the kernel's delayed-ACK policy, or what the connection did before its stream), not what the stack costs", r.Name.EN, strings.Join(en, ", and "), r.ChangePct),
			fmt.Sprintf("%s：%s（各轮中位数）：两次数据流的模式不同。Nagle 开启时小块写入要等待在途数据的 ACK：接收端立即 ACK 时报文段小，每段都唤醒接收端（并抢占发送端）；接收端延迟 ACK（TCP 的 pingpong 模式）时报文段变大，仅此即可使小消息写入相差多达五分之一。%+.1f%% 的变化可能来自接收端的 ACK 方式（内核的延迟 ACK 策略，或连接在数据流之前的交互），而非协议栈的开销", r.Name.ZH, strings.Join(zh, "，"), r.ChangePct)))
	}
	return out
}

// readMedian is the median of the rounds' values that were read (-1:
// none).
func readMedian(v []float64) float64 {
	var ok []float64
	for _, x := range v {
		if x >= 0 {
			ok = append(ok, x)
		}
	}
	return median(ok)
}

// placementShareDiff is how far apart two unpinned probes' shares of
// rounds with both ends on one CPU must be for compare to say their ends
// sat differently. Half was too far: two unpinned default probes on a
// 2-CPU VM, minutes apart, had them on one CPU in 1 of 112 rounds and in
// 45 of 96, and their latencies 37-54% apart, with nothing said. A third
// still lets two mixed probes (4 of 7 against 3 of 7) pass unremarked:
// each figure's own note gives its rounds' placement.
const placementShareDiff = 1.0 / 3

// placementDiff says when the loopback figures' two ends sat differently
// in A and B: pinned otherwise, or (unpinned) on one CPU in many more
// rounds of one probe than of the other.
func placementDiff(a, b *Result) finding.Text {
	pa, pb := a.PlacementText(), b.PlacementText()
	if pa.IsZero() || pb.IsZero() || pa.EN == pb.EN {
		return finding.Text{}
	}
	pinned := a.ProberCPU != nil || a.ListenerCPU != nil || b.ProberCPU != nil || b.ListenerCPU != nil
	if sa, sb := a.sameCPUShare(), b.sameCPUShare(); !pinned && (sa < 0 || sb < 0 || math.Abs(sa-sb) < placementShareDiff) {
		return finding.Text{}
	}
	return finding.T(
		fmt.Sprintf("the network figures' two ends were placed differently (A: %s; B: %s): on one CPU a loopback round trip is two context switches, on two it is a wake-up of the other CPU; pin both probes alike (--cpu, --peer-cpu) to compare the paths", pa.EN, pb.EN),
		fmt.Sprintf("两次探测中网络指标两端的 CPU 位置不同（A：%s；B：%s）：在同一 CPU 上，一次环回往返是两次上下文切换；在两个 CPU 上则需唤醒另一个 CPU；请以相同方式绑定两次探测（--cpu、--peer-cpu）再比较", pa.ZH, pb.ZH))
}

// settingsDiff says when A and B were measured with other settings: rounds,
// a round's length for a part both measured (--quick, --window), the memory
// buffer or the disk file. A figure over a 20 ms round is not the one over
// 120 ms: on a 2-CPU VM a default and a --quick probe minutes apart read
// UDP bandwidth 23-43% apart, and compare said nothing of their settings
// (their ends' placement differed too: placementDiff).
func settingsDiff(a, b *Result) finding.Text {
	var en, zh []string
	add := func(e, z string, va, vb string) {
		en = append(en, fmt.Sprintf("%s %s in A, %s in B", e, va, vb))
		zh = append(zh, fmt.Sprintf("%s A 为 %s，B 为 %s", z, va, vb))
	}
	if a.Quick != b.Quick {
		mode := func(q bool, def, quick string) string {
			if q {
				return quick
			}
			return def
		}
		en = append(en, fmt.Sprintf("mode %s in A, %s in B", mode(a.Quick, "default", "--quick"), mode(b.Quick, "default", "--quick")))
		zh = append(zh, fmt.Sprintf("模式 A 为%s，B 为%s", mode(a.Quick, "默认", " --quick"), mode(b.Quick, "默认", " --quick")))
	}
	if a.Rounds > 0 && b.Rounds > 0 && a.Rounds != b.Rounds {
		add("rounds per figure", "每项轮数", strconv.Itoa(a.Rounds), strconv.Itoa(b.Rounds))
	}
	if a.Windows != nil && b.Windows != nil {
		for _, w := range []struct {
			part   string
			en, zh string
			a, b   float64
		}{
			{PartNet, "a network round", "网络每轮", a.Windows.Net, b.Windows.Net},
			{PartCPU, "a CPU round", "CPU 每轮", a.Windows.CPU, b.Windows.CPU},
			{PartMem, "a memory round", "内存每轮", a.Windows.Mem, b.Windows.Mem},
			{PartDisk, "a disk round", "磁盘每轮", a.Windows.Disk, b.Windows.Disk},
		} {
			if w.a != w.b && slices.Contains(a.Parts, w.part) && slices.Contains(b.Parts, w.part) {
				add(w.en, w.zh, fmtMS(w.a), fmtMS(w.b))
			}
		}
	}
	if a.MemBytes > 0 && b.MemBytes > 0 && a.MemBytes != b.MemBytes {
		add("the memory buffer", "内存缓冲区", units.FormatBytesExact(a.MemBytes), units.FormatBytesExact(b.MemBytes))
	}
	if a.DiskBytes > 0 && b.DiskBytes > 0 && a.DiskBytes != b.DiskBytes {
		add("the disk file", "磁盘文件", units.FormatBytesExact(a.DiskBytes), units.FormatBytesExact(b.DiskBytes))
	}
	if len(en) == 0 {
		return finding.Text{}
	}
	return finding.T(
		"the two probes were measured with different settings ("+strings.Join(en, "; ")+"): a median of shorter rounds, or over a smaller buffer or file, is another measurement (a short round sees a neighbour's burst or a scheduler tick whole, a small buffer or file more of the caches), so a difference may be the settings'; probe both alike to compare",
		"两次探测的设置不同（"+strings.Join(zh, "；")+"）：更短轮次的中位数、更小缓冲区或文件上的测量是另一种测量（短轮次会完整地遇上邻居的突发负载或一次调度节拍，小缓冲区或小文件更多落在缓存中），差异可能来自设置；请以相同设置探测后再比较")
}

func fmtMS(ms float64) string { return strconv.FormatFloat(ms, 'f', -1, 64) + " ms" }

// sameCPUShare is the share of placed rounds with both ends on one CPU
// (-1: none placed).
func (r *Result) sameCPUShare() float64 {
	all := r.placed()
	if all.Rounds == 0 {
		return -1
	}
	return float64(all.SameCPU) / float64(all.Rounds)
}

// platformRule: the check categories that move a probe's figures (the
// JVMs, limits and security settings of a host do not).
func platformRule(id string) bool {
	for _, p := range []string{"cpu.", "mem.", "kernel.", "net.", "nic.", "numa.", "disk.", "virt.", "cgroup."} {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// checkDiffs evaluates the knowledge base on both hosts' facts and keeps
// the platform findings that fail on one side only.
func checkDiffs(a, b *sysinfo.Facts) []CheckDiff {
	failing := func(f *sysinfo.Facts) map[string]finding.Finding {
		m := map[string]finding.Finding{}
		for _, x := range rules.Evaluate(rules.All(), f, rules.JavaWeb) {
			if x.Status == finding.Fail && platformRule(x.ID) {
				m[x.ID+"\x00"+x.Subject] = x
			}
		}
		return m
	}
	fa, fb := failing(a), failing(b)
	var out []CheckDiff
	for _, side := range []struct {
		name       string
		this, that map[string]finding.Finding
	}{{"a", fa, fb}, {"b", fb, fa}} {
		for _, k := range slices.Sorted(maps.Keys(side.this)) {
			if _, ok := side.that[k]; !ok {
				x := side.this[k]
				out = append(out, CheckDiff{Side: side.name, ID: x.ID, Subject: x.Subject, Severity: x.Severity, Title: x.Title})
			}
		}
	}
	return out
}

// each makes every round a "run" of one value: the interval is over rounds.
func each(v []float64) [][]float64 {
	out := make([][]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) {
			out = append(out, []float64{x})
		}
	}
	return out
}

// factDiffs lists the settings that differ and the figures each moves.
func factDiffs(a, b *sysinfo.Facts) []FactDiff {
	var out []FactDiff
	add := func(what finding.Text, va, vb string, moves ...string) {
		if va != vb {
			out = append(out, FactDiff{What: what, A: va, B: vb, Moves: moves})
		}
	}
	str := func(f sysinfo.Field[string]) string {
		if !f.OK {
			return "?"
		}
		return f.Value
	}
	add(finding.T("kernel", "内核"), str(a.Kernel.Release), str(b.Kernel.Release), "")
	add(finding.T("CPU model", "CPU 型号"), str(a.CPU.Model), str(b.CPU.Model), "")
	add(finding.T("CPU vulnerability mitigations", "CPU 漏洞缓解措施"), mitigations(a), mitigations(b),
		"cpu.syscall", "cpu.ctxswitch", "net.tcp_lat", "net.udp_lat", "net.tcp_bw.1", "net.tcp_bw.64", "net.udp_bw.1", "net.udp_bw.64", "net.tcp_conn", "disk.fsync")
	add(finding.T("kernel command line", "内核启动参数"), str(a.Kernel.Cmdline), str(b.Kernel.Cmdline), "")
	// How a stream grows its window and how big its buffers may get move
	// the TCP bandwidths (at 64 KiB most; a small-write stream is paced by
	// its ACKs).
	sysctl := func(f *sysinfo.Facts, key string) string { return str(f.Sysctl[key]) }
	add(finding.T("TCP congestion control (net.ipv4.tcp_congestion_control)", "TCP 拥塞控制算法（net.ipv4.tcp_congestion_control）"),
		sysctl(a, "net.ipv4.tcp_congestion_control"), sysctl(b, "net.ipv4.tcp_congestion_control"), "net.tcp_bw")
	add(finding.T("TCP buffer limits (net.ipv4.tcp_wmem; tcp_rmem)", "TCP 缓冲区上限（net.ipv4.tcp_wmem；tcp_rmem）"),
		sysctl(a, "net.ipv4.tcp_wmem")+"; "+sysctl(a, "net.ipv4.tcp_rmem"), sysctl(b, "net.ipv4.tcp_wmem")+"; "+sysctl(b, "net.ipv4.tcp_rmem"), "net.tcp_bw")
	add(finding.T("transparent huge pages", "透明大页"), str(a.Memory.THPEnabled), str(b.Memory.THPEnabled), "mem.lat", "mem.read", "mem.copy")
	add(finding.T("clock source", "时钟源"), str(a.Clocksource.Current), str(b.Clocksource.Current), "cpu.clock")
	add(finding.T("CPU frequency governor", "CPU 调频策略"), governors(a), governors(b), "cpu.", "net.", "mem.")
	add(finding.T("idle states (C-states)", "空闲状态（C-states）"), idle(a), idle(b), "net.tcp_lat", "net.udp_lat", "cpu.ctxswitch", "cpu.c2c")
	add(finding.T("hypervisor", "虚拟化"), str(a.CPU.Hypervisor), str(b.CPU.Hypervisor), "")
	add(finding.T("NUMA nodes", "NUMA 节点数"), nodes(a), nodes(b), "mem.", "cpu.c2c")
	return out
}

func mitigations(f *sysinfo.Facts) string {
	if !f.CPU.Vulnerabilities.OK {
		return "?"
	}
	var on, vuln []string
	for _, k := range slices.Sorted(maps.Keys(f.CPU.Vulnerabilities.Value)) {
		v := f.CPU.Vulnerabilities.Value[k]
		switch {
		case strings.HasPrefix(v, "Mitigation"):
			on = append(on, k)
		case strings.HasPrefix(v, "Vulnerable"):
			vuln = append(vuln, k)
		}
	}
	return fmt.Sprintf("mitigated: %s; vulnerable: %s", orNone(on), orNone(vuln))
}

func orNone(v []string) string {
	if len(v) == 0 {
		return "none"
	}
	return strings.Join(v, ",")
}

func governors(f *sysinfo.Facts) string {
	if !f.CPU.Cpufreq.OK {
		return "?"
	}
	var s []string
	for _, g := range slices.Sorted(maps.Keys(f.CPU.Cpufreq.Value.Governors)) {
		s = append(s, fmt.Sprintf("%s×%d", g, f.CPU.Cpufreq.Value.Governors[g]))
	}
	return f.CPU.Cpufreq.Value.Driver + " " + strings.Join(s, " ")
}

func idle(f *sysinfo.Facts) string {
	if !f.CPU.Cpuidle.OK {
		return "?"
	}
	var s []string
	for _, st := range f.CPU.Cpuidle.Value.States {
		if !st.Disabled {
			s = append(s, fmt.Sprintf("%s(%dus)", st.Name, st.LatencyUS))
		}
	}
	return f.CPU.Cpuidle.Value.Driver + " " + strings.Join(s, " ")
}

func nodes(f *sysinfo.Facts) string {
	if !f.NUMA.Nodes.OK {
		return "?"
	}
	return fmt.Sprint(len(f.NUMA.Nodes.Value))
}

// explain names, for every setting that differs, the figures it moves that
// got significantly worse (or better) on B.
func explain(c *Comparison) []finding.Text {
	var out []finding.Text
	for _, d := range c.Differences {
		var worse, better []string
		for _, r := range c.Rows {
			if r.Verdict != Worse && r.Verdict != Better {
				continue
			}
			for _, m := range d.Moves {
				if m != "" && strings.HasPrefix(r.ID, m) {
					if r.Verdict == Worse {
						worse = append(worse, fmt.Sprintf("%s %+.0f%%", r.ID, r.ChangePct))
					} else {
						better = append(better, fmt.Sprintf("%s %+.0f%%", r.ID, r.ChangePct))
					}
					break
				}
			}
		}
		if len(worse) == 0 && len(better) == 0 {
			continue
		}
		en := fmt.Sprintf("%s differs (A: %s; B: %s)", d.What.EN, d.A, d.B)
		zh := fmt.Sprintf("%s不同（A：%s；B：%s）", d.What.ZH, d.A, d.B)
		if len(worse) > 0 {
			en += "; B is worse on what it moves: " + strings.Join(worse, ", ")
			zh += "；B 在它影响的指标上更差：" + strings.Join(worse, "，")
		}
		if len(better) > 0 {
			en += "; B is better on: " + strings.Join(better, ", ")
			zh += "；B 更好的指标：" + strings.Join(better, "，")
		}
		out = append(out, finding.T(en, zh))
	}
	return out
}
