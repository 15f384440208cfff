package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

func ruleSoftirq(c *ctx) []finding.Outcome {
	if len(c.cpus) < 2 {
		return nil
	}
	irq := func(p CPU) float64 { return p.Soft + p.IRQ }
	k := perCPUArg(c, irq)
	w := sustained(c.ts, func(_ int, t *Tick) bool {
		if k >= len(t.CPUs) {
			return false
		}
		v := irq(t.CPUs[k])
		return v >= SoftirqHotPct && v >= SoftirqRatio*othersMean(t, k, irq)
	})
	if !w.ok() {
		return nil
	}
	cpu := c.cpus[k]
	si := w.mean(c.ts, func(t *Tick) float64 { return irq(t.CPUs[k]) })
	others := w.mean(c.ts, func(t *Tick) float64 { return othersMean(t, k, irq) })
	othersIdle := w.mean(c.ts, func(t *Tick) float64 { return othersMean(t, k, func(p CPU) float64 { return p.Idle }) })
	// Which softirq type on that CPU.
	typ, typRate, typOthers := "", 0.0, 0.0
	for _, name := range softirqTypes(c, w) {
		r := w.mean(c.ts, func(t *Tick) float64 { return at(t.Softirq[name], k) })
		if r > typRate {
			typ, typRate = name, r
			typOthers = w.mean(c.ts, func(t *Tick) float64 {
				v := t.Softirq[name]
				if len(v) < 2 {
					return 0
				}
				s := 0.0
				for j := range v {
					if j != k {
						s += v[j]
					}
				}
				return s / float64(len(v)-1)
			})
		}
	}
	// Every CPU carrying interrupt load ("a few CPUs" when queues are fewer
	// than CPUs).
	var hot []int
	for j := range c.cpus {
		if w.mean(c.ts, func(t *Tick) float64 { return irq(at2(t.CPUs, j)) }) >= SoftirqHotPct {
			hot = append(hot, c.cpus[j])
		}
	}
	net := typ == "NET_RX" || typ == "NET_TX"
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Critical, SevSet: true, Subject: "cpu" + strconv.Itoa(cpu), Confidence: confidence(0.9, w),
		Title: finding.Tf(finding.T("Interrupt/softirq load concentrated on CPU %d", "中断/软中断集中在 CPU %d"), cpu)}
	f.Observed = finding.Text{
		EN: fmt.Sprintf("CPU %d spent %s in softirq+irq while the other CPUs averaged %s (and were %s idle); top softirq %s at %s/s on CPU %d vs %s/s on the others, over %s.",
			cpu, pct(si), pct(others), pct(othersIdle), typ, num(typRate), cpu, num(typOthers), w.span().EN),
		ZH: fmt.Sprintf("CPU %d 的软中断+中断占 %s，其他 CPU 平均 %s（空闲 %s）；最多的软中断 %s 在 CPU %d 上 %s 次/秒，其他 CPU %s 次/秒，%s。",
			cpu, pct(si), pct(others), pct(othersIdle), typ, cpu, num(typRate), num(typOthers), w.span().ZH),
	}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("cpu", strconv.Itoa(cpu), ""), ev("si_hi_pct", pct(si), "/proc/stat cpu"+strconv.Itoa(cpu)),
		ev("others_si_hi_pct", pct(others), "/proc/stat"), ev("others_idle_pct", pct(othersIdle), "/proc/stat"),
		ev("hot_cpus", sysinfo.FormatCPUList(hot), "/proc/stat"), ev("softirq_type", typ, "/proc/softirqs"), ev("softirq_per_s_cpu", num(typRate), "/proc/softirqs"), ev("softirq_per_s_others", num(typOthers), "/proc/softirqs"))
	if net {
		nicAdvice(c, &f, cpu)
	} else {
		f.Recommended = finding.Tf(finding.T("Find the IRQs firing on CPU %d (the busiest rows of /proc/interrupts) and spread their affinity (/proc/irq/N/smp_affinity_list) over the CPUs of the device's NUMA node.",
			"找出在 CPU %d 上触发的中断（/proc/interrupts 中最忙的行），把它们的亲和性（/proc/irq/N/smp_affinity_list）分散到设备所在 NUMA 节点的 CPU 上。"), cpu)
		f.Confidence = confidence(0.7, w)
	}
	return []finding.Outcome{f}
}

func at2(v []CPU, k int) CPU {
	if k < len(v) {
		return v[k]
	}
	return CPU{}
}

func at(v []float64, k int) float64 {
	if k < len(v) {
		return v[k]
	}
	return 0
}

func softirqTypes(c *ctx, w window) []string {
	seen := map[string]bool{}
	for _, i := range w.hits {
		for n := range c.ts[i].Softirq {
			seen[n] = true
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// nicAdvice picks the NIC whose IRQs land on cpu and writes the fix from
// its queue count and IRQ affinity (facts from the manifest).
func nicAdvice(c *ctx, f *finding.Outcome, cpu int) {
	facts := c.in.Facts
	var cands []sysinfo.NIC
	if facts.NICs.OK {
		for _, n := range facts.NICs.Value {
			if !n.Loopback && (len(n.IRQs) > 0 || !n.Virtual) {
				cands = append(cands, n)
			}
		}
	}
	// Prefer a NIC with an IRQ whose affinity is (only) this CPU, then the
	// one with the most interrupts on it.
	score := func(n sysinfo.NIC) (int, uint64) {
		s, on := 0, uint64(0)
		for _, q := range n.IRQs {
			aff := q.Effective
			if len(aff) == 0 {
				aff = q.Affinity
			}
			if slices.Contains(aff, cpu) {
				s++
			}
			if cpu < len(q.Counts) {
				on += q.Counts[cpu]
			}
		}
		return s, on
	}
	sort.SliceStable(cands, func(i, j int) bool {
		si, oi := score(cands[i])
		sj, oj := score(cands[j])
		if si != sj {
			return si > sj
		}
		return oi > oj
	})
	if len(cands) == 0 {
		f.Recommended = finding.Tf(finding.T("Spread the network interrupts off CPU %d: more NIC queues (ethtool -L IFACE combined N), IRQ affinity over the NIC's NUMA node, or RPS (/sys/class/net/IFACE/queues/rx-*/rps_cpus). The manifest has no NIC facts to write the exact commands.",
			"把网络中断从 CPU %d 分散出去：增加网卡队列（ethtool -L IFACE combined N）、把中断亲和性分散到网卡所在 NUMA 节点，或开启 RPS（/sys/class/net/IFACE/queues/rx-*/rps_cpus）。记录中没有网卡信息，无法给出精确命令。"), cpu)
		f.Confidence = min(f.Confidence, 0.7)
		return
	}
	n := cands[0]
	queues := max(n.Combined, n.RxQueues, 1)
	// CPUs to spread over: the NIC's NUMA node, else all online.
	var pool []int
	if facts.NUMA.Nodes.OK && n.NUMANode >= 0 {
		for _, nd := range facts.NUMA.Nodes.Value {
			if nd.ID == n.NUMANode {
				pool = slices.Clone(nd.CPUs)
			}
		}
	}
	if len(pool) == 0 && facts.CPU.Online.OK {
		pool = slices.Clone(facts.CPU.Online.Value)
	}
	if len(pool) == 0 {
		pool = slices.Clone(c.cpus)
	}
	var irqDesc []string
	for _, q := range n.IRQs {
		aff := q.Effective
		if len(aff) == 0 {
			aff = q.Affinity
		}
		irqDesc = append(irqDesc, fmt.Sprintf("%d(%s)->cpu %s", q.Number, q.Name, sysinfo.FormatCPUList(aff)))
	}
	f.Evidence = append(f.Evidence, ev("nic", n.Name, "/sys/class/net/"+n.Name),
		ev("nic_queues", fmt.Sprintf("rx %d, tx %d, combined %d (max %d)", n.RxQueues, n.TxQueues, n.Combined, n.MaxCombined), "/sys/class/net/"+n.Name+"/queues, ethtool -l"),
		ev("nic_irqs", strings.Join(irqDesc, ", "), "/proc/interrupts, /proc/irq/N/smp_affinity_list"),
		ev("nic_numa_node", strconv.Itoa(n.NUMANode), "/sys/class/net/"+n.Name+"/device/numa_node"))
	if facts.IRQBalance.OK {
		f.Evidence = append(f.Evidence, ev("irqbalance_running", strconv.FormatBool(facts.IRQBalance.Value), "/proc/*/comm"))
	}
	f.Subject = n.Name + "/cpu" + strconv.Itoa(cpu)

	var apply, revert, persist []string
	want := min(len(pool), 16)
	if n.MaxCombined > 0 {
		want = min(want, n.MaxCombined)
	}
	canQueues := want > queues && (n.MaxCombined == 0 || n.MaxCombined > queues)
	if canQueues {
		apply = append(apply, fmt.Sprintf("ethtool -L %s combined %d", n.Name, want))
		revert = append(revert, fmt.Sprintf("ethtool -L %s combined %d", n.Name, queues))
		persist = append(persist, fmt.Sprintf("ETHTOOL_OPTS=\"-L %s combined %d\"   # ifcfg-%s, or a NetworkManager dispatcher / systemd unit", n.Name, want, n.Name))
		// One CPU per queue IRQ, round robin over the node (the new IRQs'
		// numbers are known only once the queues exist).
		apply = append(apply, fmt.Sprintf("i=0; cpus=(%s); for irq in $(awk -F: '/%s/{print $1}' /proc/interrupts); do echo ${cpus[i %% %d]} > /proc/irq/$irq/smp_affinity_list; i=$((i+1)); done",
			strings.Trim(fmt.Sprint(pool), "[]"), n.Name, len(pool)))
		for _, q := range n.IRQs {
			old := q.Affinity
			if len(old) == 0 {
				old = pool
			}
			revert = append(revert, fmt.Sprintf("echo %s > /proc/irq/%d/smp_affinity_list", sysinfo.FormatCPUList(old), q.Number))
		}
	}
	// Spread the existing IRQs (one CPU each, round robin over the pool,
	// starting away from the hot CPU).
	if !canQueues && len(n.IRQs) > 1 {
		others := slices.DeleteFunc(slices.Clone(pool), func(x int) bool { return x == cpu })
		if len(others) == 0 {
			others = pool
		}
		for i, q := range n.IRQs {
			to := others[i%len(others)]
			old := q.Affinity
			if len(old) == 0 {
				old = pool
			}
			apply = append(apply, fmt.Sprintf("echo %d > /proc/irq/%d/smp_affinity_list", to, q.Number))
			revert = append(revert, fmt.Sprintf("echo %s > /proc/irq/%d/smp_affinity_list", sysinfo.FormatCPUList(old), q.Number))
		}
	}
	// With a single queue (and no more to be had), RPS spreads the
	// protocol work of rx-0 over the other CPUs of the node.
	if !canQueues && queues == 1 {
		rps := slices.DeleteFunc(slices.Clone(pool), func(x int) bool { return x == cpu })
		if len(rps) > 0 {
			apply = append(apply,
				fmt.Sprintf("echo %s > /sys/class/net/%s/queues/rx-0/rps_cpus", cpuMask(rps), n.Name),
				"sysctl -w net.core.rps_sock_flow_entries=32768",
				fmt.Sprintf("echo 32768 > /sys/class/net/%s/queues/rx-0/rps_flow_cnt", n.Name))
			revert = append(revert,
				fmt.Sprintf("echo 0 > /sys/class/net/%s/queues/rx-0/rps_cpus", n.Name),
				"sysctl -w net.core.rps_sock_flow_entries=0",
				fmt.Sprintf("echo 0 > /sys/class/net/%s/queues/rx-0/rps_flow_cnt", n.Name))
			persist = append(persist, "net.core.rps_sock_flow_entries = 32768   # /etc/sysctl.d/90-tuneloop.conf; rps_cpus via a udev rule or systemd unit")
		}
	}
	f.Recommended = finding.Tf(finding.T("%s has %d queue(s) and its interrupts land on CPU %d. Spread the receive work over CPUs %s (its NUMA node): more queues where the NIC allows (max %d), one IRQ per CPU, and RPS when only one queue exists.",
		"%s 只有 %d 个队列，中断都落在 CPU %d。把收包处理分散到 CPU %s（网卡所在 NUMA 节点）：网卡允许时增加队列（最大 %d），每个中断绑一个 CPU，只有一个队列时开启 RPS。"),
		n.Name, queues, cpu, sysinfo.FormatCPUList(pool), n.MaxCombined)
	f.Fix = finding.Fix{Apply: strings.Join(apply, "\n"), Revert: strings.Join(revert, "\n"), Persist: strings.Join(persist, "\n"),
		Note: finding.T("Run as root, then record again and compare (tuneloop record). If irqbalance runs it may move the IRQs back: add --banirq=N for them or stop it while testing.",
			"以 root 执行，然后重新记录并对比（tuneloop record）。若 irqbalance 在运行，它可能把中断移回：为这些中断加 --banirq=N 或测试期间停用它。")}
}
