package rules

import (
	"fmt"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// TCP/IP stack sysctls (kernel Documentation/networking/ip-sysctl.rst; TuneD and
// A-Tune profile values).

func netRules() []Rule {
	return []Rule{
		{
			ID: "net.somaxconn", Category: "net", Severity: warning,
			Reads:      []string{"/proc/sys/net/core/somaxconn"},
			Title:      T("Listen backlog limit (somaxconn)", "监听队列上限（somaxconn）"),
			Checks:     T("Reads net.core.somaxconn and expects at least 4096.", "读取 net.core.somaxconn，期望不小于 4096。"),
			Why:        T("The kernel silently caps every listen backlog (Tomcat acceptCount, Netty SO_BACKLOG) at somaxconn; when the accept queue overflows, SYNs are dropped and clients wait 1 s+ for a retransmit.", "内核会把所有监听队列（Tomcat acceptCount、Netty SO_BACKLOG）悄悄截断到 somaxconn；全连接队列溢出时 SYN 被丢弃，客户端要等 1 秒以上重传。"),
			Risk:       T("A bigger queue can hide overload (requests wait instead of failing fast).", "更大的队列可能掩盖过载（请求排队而不是快速失败）。"),
			Workload:   T("All network services.", "所有网络服务。"),
			References: []string{"TuneD throughput-performance: net.core.somaxconn=>2048", "A-Tune: somaxconn 65535", "kernel Documentation/networking/ip-sysctl.rst"},
			Eval:       evalNetSomaxconn,
		},
		{
			ID: "net.syn-backlog", Category: "net", Severity: info,
			Reads:      []string{"/proc/sys/net/ipv4/tcp_max_syn_backlog"},
			Title:      T("SYN queue size", "半连接队列（SYN backlog）"),
			Checks:     T("Compares net.ipv4.tcp_max_syn_backlog with somaxconn (and at least 4096).", "比较 net.ipv4.tcp_max_syn_backlog 与 somaxconn（且不小于 4096）。"),
			Why:        T("Connection bursts from load balancers and reconnecting clients fill the SYN queue before the accept queue; 'possible SYN flooding' in dmesg is the symptom.", "负载均衡器和客户端重连带来的连接突发会先填满半连接队列；dmesg 中的 possible SYN flooding 就是症状。"),
			Risk:       T("Memory per pending connection.", "每个半连接占用少量内存。"),
			Workload:   T("Services accepting many new connections.", "新建连接多的服务。"),
			References: []string{"A-Tune: tcp_max_syn_backlog 262144"},
			Eval:       evalNetSynBacklog,
		},
		{
			ID: "net.syncookies", Category: "net", Severity: warning,
			Reads:      []string{"/proc/sys/net/ipv4/tcp_syncookies"},
			Title:      T("SYN cookies", "SYN cookies"),
			Checks:     T("Reads net.ipv4.tcp_syncookies and expects 1.", "读取 net.ipv4.tcp_syncookies，期望为 1。"),
			Why:        T("Without SYN cookies a full SYN queue drops new connections outright, whether from a flood or a legitimate burst.", "关闭 SYN cookies 时，半连接队列满后新连接会被直接丢弃，无论是攻击还是正常突发。"),
			Risk:       T("None material (cookies only kick in when the queue is full).", "无实质风险（只在队列满时启用）。"),
			Workload:   T("All network services.", "所有网络服务。"),
			References: []string{"kernel Documentation/networking/ip-sysctl.rst (tcp_syncookies)"},
			Eval:       simpleSysctl("net.ipv4.tcp_syncookies", func(v int64) bool { return v >= 1 }, 1),
		},
		{
			ID: "net.softnet", Category: "net", Severity: warning,
			Reads:      []string{"/proc/net/softnet_stat", "/proc/sys/net/core/netdev_max_backlog"},
			Title:      T("Packet backlog drops and squeezes", "收包队列丢包与处理预算耗尽"),
			Checks:     T("Sums /proc/net/softnet_stat: any drop (netdev_max_backlog overflow) fails; time_squeeze above 0.1% of packets fails as info.", "汇总 /proc/net/softnet_stat：出现丢包（netdev_max_backlog 溢出）即不通过；time_squeeze 超过报文数 0.1% 为提示。"),
			Why:        T("Drops here happen before TCP sees the packet (retransmits, latency spikes); squeezes mean softirq ran out of budget and left packets for later.", "这里的丢包发生在 TCP 之前（导致重传和时延尖刺）；time_squeeze 表示软中断预算用完，报文被推迟处理。"),
			Risk:       T("Larger backlog and budget mean more memory and longer softirq bursts.", "更大的队列和预算意味着更多内存占用和更长的软中断处理时间。"),
			Workload:   T("Network-heavy services.", "网络密集型服务。"),
			References: []string{"kernel Documentation/networking/scaling.rst", "PerfSpect netconfig table"},
			Eval:       evalNetSoftnet,
		},
		{
			ID: "net.socket-buffers", Category: "net", Severity: info,
			Reads:      []string{"/proc/sys/net/core/rmem_max", "/proc/sys/net/core/wmem_max"},
			Title:      T("Socket buffer limits on fast links", "高速链路上的 socket 缓冲区上限"),
			Checks:     T("On hosts with a 25 Gb/s or faster NIC, expects net.core.rmem_max and wmem_max of at least 16 MiB.", "主机有 25 Gb/s 及以上网卡时，期望 net.core.rmem_max 和 wmem_max 不小于 16 MiB。"),
			Why:        T("TCP autotuning never grows a buffer past these caps, which limits a single connection's throughput on high bandwidth-delay paths.", "TCP 自动调优不会让缓冲区超过这些上限，在高带宽时延积的链路上会限制单连接吞吐。"),
			Risk:       T("Memory per socket times connections.", "内存占用 = 每连接缓冲 × 连接数。"),
			Workload:   T("Bulk transfer over 25G+ links; request/response LAN services rarely need it.", "25G 以上链路上的大流量传输；局域网请求/响应类服务一般不需要。"),
			References: []string{"TuneD network-throughput: tcp_rmem/tcp_wmem max 16777216"},
			Eval:       evalNetSocketBuffers,
		},
		{
			ID: "net.port-range", Category: "net", Severity: warning,
			Reads:      []string{"/proc/sys/net/ipv4/ip_local_port_range"},
			Title:      T("Ephemeral port range", "本地临时端口范围"),
			Checks:     T("Reads net.ipv4.ip_local_port_range and fails when it is narrower than the kernel default (28232 ports).", "读取 net.ipv4.ip_local_port_range，比内核默认（28232 个端口）更窄时不通过。"),
			Why:        T("Outbound HTTP clients and DB/Redis pools take a local port per connection; with TIME_WAIT a narrow range runs out and connect() fails with EADDRNOTAVAIL.", "出站 HTTP 客户端、数据库/Redis 连接池每个连接都占用一个本地端口；加上 TIME_WAIT，窄范围很快耗尽，connect() 报 EADDRNOTAVAIL。"),
			Risk:       T("A wide range can collide with listening ports unless they are in ip_local_reserved_ports.", "范围过宽可能与监听端口冲突，需把监听端口加入 ip_local_reserved_ports。"),
			Workload:   T("Services with many outbound connections.", "出站连接多的服务。"),
			References: []string{"TuneD oracle: 9000 65499", "A-Tune: 1024 65500"},
			Eval:       evalNetPortRange,
		},
		{
			ID: "net.tw-reuse", Category: "net", Severity: info,
			Reads:      []string{"/proc/sys/net/ipv4/tcp_tw_reuse"},
			Title:      T("TIME_WAIT reuse for outbound connections", "出站连接复用 TIME_WAIT"),
			Checks:     T("Reads net.ipv4.tcp_tw_reuse and fails on 0.", "读取 net.ipv4.tcp_tw_reuse，为 0 时不通过。"),
			Why:        T("Short-lived outbound connections pile up in TIME_WAIT; tw_reuse lets connect() reuse them safely (with timestamps).", "短连接出站会堆积大量 TIME_WAIT；tw_reuse 允许 connect() 在有时间戳保护时安全复用它们。"),
			Risk:       T("Safe with tcp_timestamps = 1; affects only outgoing connections.", "在 tcp_timestamps = 1 时是安全的；只影响出站连接。"),
			Workload:   T("Services with many short outbound connections.", "大量短出站连接的服务。"),
			References: []string{"kernel Documentation/networking/ip-sysctl.rst (tcp_tw_reuse)"},
			Eval:       simpleSysctl("net.ipv4.tcp_tw_reuse", func(v int64) bool { return v != 0 }, 1),
		},
		{
			ID: "net.tw-recycle", Category: "net", Severity: critical,
			Reads:      []string{"/proc/sys/net/ipv4/tcp_tw_recycle"},
			Title:      T("tcp_tw_recycle enabled", "启用了 tcp_tw_recycle"),
			Checks:     T("Reads net.ipv4.tcp_tw_recycle (removed in 4.12) and fails on 1.", "读取 net.ipv4.tcp_tw_recycle（4.12 已删除），为 1 时不通过。"),
			Why:        T("tw_recycle drops SYNs from clients behind NAT whose timestamps are not monotonic: random connection failures from whole offices or load balancers.", "tw_recycle 会丢弃 NAT 后面时间戳不单调的客户端 SYN，导致整个办公网或负载均衡后的客户端随机连不上。"),
			Risk:       T("None: turning it off only removes the breakage.", "无：关闭只会消除故障。"),
			Workload:   T("All network services on old kernels.", "老内核上的所有网络服务。"),
			References: []string{"Linux 4.12 commit 4396e46187ca (remove tcp_tw_recycle)"},
			Eval:       simpleSysctl("net.ipv4.tcp_tw_recycle", func(v int64) bool { return v == 0 }, 0),
		},
		{
			ID: "net.timestamps", Category: "net", Severity: warning,
			Reads:      []string{"/proc/sys/net/ipv4/tcp_timestamps"},
			Title:      T("TCP timestamps", "TCP 时间戳"),
			Checks:     T("Reads net.ipv4.tcp_timestamps and expects it enabled.", "读取 net.ipv4.tcp_timestamps，期望开启。"),
			Why:        T("Timestamps give accurate RTT estimates, PAWS protection and make tcp_tw_reuse safe; some tuning guides turn them off as a 'speed-up'.", "时间戳提供准确的 RTT 估计和 PAWS 保护，也是 tcp_tw_reuse 安全的前提；有些调优指南为“提速”关闭它。"),
			Risk:       T("10 bytes per segment.", "每个报文多 10 字节。"),
			Workload:   T("All network services.", "所有网络服务。"),
			References: []string{"RFC 7323 (TCP timestamps, PAWS)", "kernel Documentation/networking/ip-sysctl.rst (tcp_timestamps)", "A-Tune tomcat/nginx profiles: tcp_timestamps 0 (counter-example)"},
			Eval:       simpleSysctl("net.ipv4.tcp_timestamps", func(v int64) bool { return v != 0 }, 1),
		},
		{
			ID: "net.fin-timeout", Category: "net", Severity: info,
			Reads:      []string{"/proc/sys/net/ipv4/tcp_fin_timeout"},
			Title:      T("FIN-WAIT-2 timeout", "FIN-WAIT-2 超时"),
			Checks:     T("Reads net.ipv4.tcp_fin_timeout and fails outside 10-60 s.", "读取 net.ipv4.tcp_fin_timeout，不在 10-60 秒之间时不通过。"),
			Why:        T("Very low values (A-Tune uses 1) cut off slow peers that are still closing; very high ones keep orphaned sockets and their memory around.", "过低（A-Tune 用 1）会切断仍在关闭中的慢速对端；过高则让孤儿连接及其内存长期滞留。"),
			Risk:       T("Negligible within 15-60 s.", "在 15-60 秒之间风险可以忽略。"),
			Workload:   T("All network services.", "所有网络服务。"),
			References: []string{"kernel Documentation/networking/ip-sysctl.rst (tcp_fin_timeout)"},
			Eval:       simpleSysctlWant("net.ipv4.tcp_fin_timeout", func(v int64) bool { return v >= 10 && v <= 60 }, 30),
		},
		{
			ID: "net.slow-start-after-idle", Category: "net", Severity: info,
			Reads:      []string{"/proc/sys/net/ipv4/tcp_slow_start_after_idle"},
			Title:      T("Slow start after idle", "空闲后慢启动"),
			Checks:     T("Reads net.ipv4.tcp_slow_start_after_idle and expects 0.", "读取 net.ipv4.tcp_slow_start_after_idle，期望为 0。"),
			Why:        T("Pooled keep-alive, HTTP/2 and gRPC connections go idle between bursts; with 1 each burst restarts from a small congestion window and pays extra round trips.", "连接池里的长连接、HTTP/2 和 gRPC 连接在突发之间会空闲；为 1 时每次突发都从小拥塞窗口重新开始，多付出若干往返。"),
			Risk:       T("A stale window can burst into a congested path.", "过时的窗口可能向拥塞的路径突发发送。"),
			Workload:   T("Services using pooled / long-lived connections.", "使用连接池/长连接的服务。"),
			References: []string{"TuneD network-throughput: tcp_slow_start_after_idle=0"},
			Eval:       simpleSysctl("net.ipv4.tcp_slow_start_after_idle", func(v int64) bool { return v == 0 }, 0),
		},
		{
			ID: "net.keepalive", Category: "net", Severity: info,
			Reads:      []string{"/proc/sys/net/ipv4/tcp_keepalive_time"},
			Title:      T("TCP keepalive time", "TCP 保活时间"),
			Checks:     T("Reads net.ipv4.tcp_keepalive_time and fails above 1800 s.", "读取 net.ipv4.tcp_keepalive_time，大于 1800 秒时不通过。"),
			Why:        T("Load balancers, firewalls and NAT drop idle flows after minutes; with the default 2 h keepalive, a pooled connection is found dead only when a request hits it.", "负载均衡、防火墙和 NAT 几分钟后就会清理空闲连接；默认 2 小时的保活意味着连接池里的死连接要等请求撞上才发现。"),
			Risk:       T("Slightly more keepalive packets.", "保活报文略有增加。"),
			Workload:   T("Services with connection pools through middleboxes.", "经过中间设备使用连接池的服务。"),
			References: []string{"A-Tune: tcp_keepalive_time 60"},
			Eval:       simpleSysctlWant("net.ipv4.tcp_keepalive_time", func(v int64) bool { return v <= 1800 }, 600),
		},
		{
			ID: "net.busy-poll", Category: "net", Severity: info,
			Reads:      []string{"/proc/sys/net/core/busy_poll", "/proc/sys/net/core/busy_read"},
			Title:      T("Socket busy polling", "socket 忙轮询（busy poll）"),
			Checks:     T("Reads net.core.busy_read / busy_poll: the latency profile suggests 50 µs, other profiles expect 0.", "读取 net.core.busy_read / busy_poll：latency 配置档建议 50 µs，其他配置档期望为 0。"),
			Why:        T("Busy polling spins on the NIC queue instead of sleeping for the interrupt: lower latency, but it burns CPU that a throughput service needs.", "忙轮询在网卡队列上自旋而不是等待中断：时延更低，但会消耗吞吐型服务需要的 CPU。"),
			Risk:       T("Busy polling burns cores; only useful with few, latency-critical sockets.", "忙轮询会占满 CPU 核；只在少量时延敏感连接时有用。"),
			Workload:   T("latency profile: 50; java-web / database: 0.", "latency 配置档：50；java-web / database：0。"),
			References: []string{"TuneD network-latency: net.core.busy_read=50, busy_poll=50", "kernel Documentation/networking/napi.rst (busy polling)"},
			Eval:       evalNetBusyPoll,
		},
		{
			ID: "net.conntrack", Category: "net", Severity: warning,
			Reads:      []string{"/proc/sys/net/netfilter/nf_conntrack_count", "/proc/sys/net/netfilter/nf_conntrack_max"},
			Title:      T("Connection tracking table usage", "连接跟踪表使用率"),
			Checks:     T("Compares nf_conntrack_count with nf_conntrack_max: above 80% fails, above 95% is critical.", "比较 nf_conntrack_count 与 nf_conntrack_max：超过 80% 不通过，超过 95% 为严重。"),
			Why:        T("When the table is full the kernel drops new connections silently ('nf_conntrack: table full, dropping packet' in dmesg).", "表满后内核会悄悄丢弃新连接（dmesg 中出现 nf_conntrack: table full, dropping packet）。"),
			Risk:       T("Each entry costs ~300 bytes of kernel memory.", "每个表项约占 300 字节内核内存。"),
			Workload:   T("Hosts with firewall/NAT rules or Kubernetes nodes.", "有防火墙/NAT 规则的主机或 Kubernetes 节点。"),
			References: []string{"TuneD openshift: nf_conntrack_max=1048576"},
			Eval:       evalNetConntrack,
		},
	}
}

// evalNetSomaxconn is the rule net.somaxconn.
func evalNetSomaxconn(c *Ctx) []Outcome {
	v, e, bad := sysctlInt(c, "net.core.somaxconn")
	if bad != nil {
		return one(*bad)
	}
	if v >= 4096 {
		return one(pass(Tf("somaxconn %d", "somaxconn 为 %d", v), e))
	}
	o := fail(Tf("somaxconn %d caps every listen backlog", "somaxconn 为 %d，所有监听队列都被截断到该值", v), T("net.core.somaxconn = 4096 (and the application backlog at least as large)", "net.core.somaxconn = 4096（应用侧 backlog 同步调大）"),
		sysctlFix1("net.core.somaxconn", 4096, v), e)
	return one(o)
}

// evalNetSynBacklog is the rule net.syn-backlog.
func evalNetSynBacklog(c *Ctx) []Outcome {
	v, e, bad := sysctlInt(c, "net.ipv4.tcp_max_syn_backlog")
	if bad != nil {
		return one(*bad)
	}
	want := int64(4096)
	if s, _, b := sysctlInt(c, "net.core.somaxconn"); b == nil && s > want {
		want = s
	}
	if v >= want {
		return one(pass(Tf("tcp_max_syn_backlog %d", "tcp_max_syn_backlog 为 %d", v), e))
	}
	return one(fail(Tf("tcp_max_syn_backlog %d", "tcp_max_syn_backlog 为 %d", v), Tf("net.ipv4.tcp_max_syn_backlog = %d", "net.ipv4.tcp_max_syn_backlog = %d", want),
		sysctlFix1("net.ipv4.tcp_max_syn_backlog", want, v), e))
}

// evalNetSoftnet is the rule net.softnet.
func evalNetSoftnet(c *Ctx) []Outcome {
	f := c.F.Softnet
	if !f.OK {
		return one(unavailableFrom(same("/proc/net/softnet_stat"), f))
	}
	s := f.Value
	e := ev("softnet processed/dropped/time_squeeze", fmt.Sprintf("%d/%d/%d", s.Processed, s.Dropped, s.TimeSqueeze), orDefault(f.Source, "/proc/net/softnet_stat"))
	if s.Dropped > 0 {
		v, eb, bad := sysctlInt(c, "net.core.netdev_max_backlog")
		if bad != nil {
			return one(advice(Tf("%d packets dropped at the per-CPU backlog", "per-CPU 收包队列丢弃了 %d 个报文", s.Dropped), T("raise net.core.netdev_max_backlog (e.g. 16384)", "调大 net.core.netdev_max_backlog（如 16384）"), e))
		}
		want := v * 2
		if want < 16384 {
			want = 16384
		}
		return one(fail(Tf("%d packets dropped at the per-CPU backlog (netdev_max_backlog %d)", "per-CPU 收包队列丢弃了 %d 个报文（netdev_max_backlog 为 %d）", s.Dropped, v),
			Tf("net.core.netdev_max_backlog = %d, and spread NIC IRQs / RPS (nic.*)", "net.core.netdev_max_backlog = %d，并分散网卡中断/开启 RPS（见 nic.*）", want),
			sysctlFix1("net.core.netdev_max_backlog", want, v), e, eb))
	}
	if s.Processed > 0 && s.TimeSqueeze*1000 > s.Processed {
		v, eb, bad := sysctlInt(c, "net.core.netdev_budget")
		if bad != nil {
			return one(*bad)
		}
		want := v * 2
		if want < 600 {
			want = 600
		}
		return one(fail(Tf("time_squeeze %d for %d packets (%.2f%%), netdev_budget %d", "time_squeeze %d 次 / %d 个报文（%.2f%%），netdev_budget 为 %d", s.TimeSqueeze, s.Processed, float64(s.TimeSqueeze)*100/float64(s.Processed), v),
			Tf("net.core.netdev_budget = %d", "net.core.netdev_budget = %d", want), sysctlFix1("net.core.netdev_budget", want, v), e, eb).WithSeverity(info))
	}
	return one(pass(T("no backlog drops, few squeezes", "没有收包队列丢包，预算耗尽很少"), e))
}

// evalNetSocketBuffers is the rule net.socket-buffers.
func evalNetSocketBuffers(c *Ctx) []Outcome {
	nics, o := upNICs(c)
	if o != nil {
		return one(*o)
	}
	fast := ""
	for _, n := range nics {
		if n.SpeedMbps >= 25000 {
			fast = fmt.Sprintf("%s %d Mb/s", n.Name, n.SpeedMbps)
		}
	}
	if fast == "" {
		return one(skip(T("no NIC at 25 Gb/s or faster: default socket buffers are fine", "没有 25 Gb/s 及以上网卡：默认 socket 缓冲区即可")))
	}
	r, er, b1 := sysctlInt(c, "net.core.rmem_max")
	if b1 != nil {
		return one(*b1)
	}
	w, ew, b2 := sysctlInt(c, "net.core.wmem_max")
	if b2 != nil {
		return one(*b2)
	}
	const want = 16 << 20
	obs := Tf("%s; rmem_max %d, wmem_max %d", "%s；rmem_max %d，wmem_max %d", fast, r, w)
	if r >= want && w >= want {
		return one(pass(obs, er, ew))
	}
	fx := sysctlFix([]kv{{"net.core.rmem_max", fmt.Sprint(want)}, {"net.core.wmem_max", fmt.Sprint(want)}},
		[]kv{{"net.core.rmem_max", fmt.Sprint(r)}, {"net.core.wmem_max", fmt.Sprint(w)}})
	return one(fail(obs, T("net.core.rmem_max = net.core.wmem_max = 16777216", "net.core.rmem_max = net.core.wmem_max = 16777216"), fx, er, ew))
}

// evalNetPortRange is the rule net.port-range.
func evalNetPortRange(c *Ctx) []Outcome {
	v, e, bad := sysctlInts(c, "net.ipv4.ip_local_port_range", 2)
	if bad != nil {
		return one(*bad)
	}
	width := v[1] - v[0] + 1
	obs := Tf("ports %d-%d (%d)", "端口 %d-%d（共 %d 个）", v[0], v[1], width)
	if width >= 28232 {
		return one(pass(obs, e))
	}
	return one(fail(obs, T("net.ipv4.ip_local_port_range = 9000 65499 (reserve listening ports in ip_local_reserved_ports)", "net.ipv4.ip_local_port_range = 9000 65499（监听端口加入 ip_local_reserved_ports）"),
		sysctlFix1("net.ipv4.ip_local_port_range", "9000 65499", fmt.Sprintf("%d %d", v[0], v[1])), e))
}

// evalNetBusyPoll is the rule net.busy-poll.
func evalNetBusyPoll(c *Ctx) []Outcome {
	r, er, b1 := sysctlInt(c, "net.core.busy_read")
	if b1 != nil {
		return one(*b1)
	}
	p, ep, b2 := sysctlInt(c, "net.core.busy_poll")
	if b2 != nil {
		return one(*b2)
	}
	obs := Tf("busy_read %d, busy_poll %d", "busy_read %d，busy_poll %d", r, p)
	was := []kv{{"net.core.busy_read", fmt.Sprint(r)}, {"net.core.busy_poll", fmt.Sprint(p)}}
	if c.Profile == Latency {
		if r > 0 && p > 0 {
			return one(pass(obs, er, ep))
		}
		return one(fail(obs, T("net.core.busy_read = busy_poll = 50 (measure: costs CPU)", "net.core.busy_read = busy_poll = 50（需压测验证，会消耗 CPU）"),
			sysctlFix([]kv{{"net.core.busy_read", "50"}, {"net.core.busy_poll", "50"}}, was), er, ep))
	}
	if r == 0 && p == 0 {
		return one(pass(obs, er, ep))
	}
	return one(fail(obs, T("net.core.busy_read = busy_poll = 0 for throughput services", "吞吐型服务设为 net.core.busy_read = busy_poll = 0"),
		sysctlFix([]kv{{"net.core.busy_read", "0"}, {"net.core.busy_poll", "0"}}, was), er, ep).WithSeverity(warning))
}

// evalNetConntrack is the rule net.conntrack.
func evalNetConntrack(c *Ctx) []Outcome {
	max, em, b1 := sysctlInt(c, "net.netfilter.nf_conntrack_max")
	if b1 != nil {
		if b1.Status == finding.Skipped {
			return one(skip(T("nf_conntrack is not loaded", "未加载 nf_conntrack")))
		}
		return one(*b1)
	}
	cnt, ec, b2 := sysctlInt(c, "net.netfilter.nf_conntrack_count")
	if b2 != nil {
		return one(*b2)
	}
	if max <= 0 {
		return one(unavailable(same("nf_conntrack_max"), finding.T("zero", "为零")))
	}
	r := float64(cnt) / float64(max)
	obs := Tf("conntrack %d of %d entries (%s)", "连接跟踪 %d / %d（%s）", cnt, max, pct(r))
	if r <= 0.8 {
		return one(pass(obs, ec, em))
	}
	want := max * 2
	if want < 1048576 {
		want = 1048576
	}
	o := fail(obs, Tf("net.netfilter.nf_conntrack_max = %d (and raise /sys/module/nf_conntrack/parameters/hashsize to max/4)", "net.netfilter.nf_conntrack_max = %d（并将 /sys/module/nf_conntrack/parameters/hashsize 调为 max/4）", want),
		sysctlFix1("net.netfilter.nf_conntrack_max", want, max), ec, em)
	if r > 0.95 {
		o = o.WithSeverity(critical)
	}
	return one(o)
}

// simpleSysctlWant is simpleSysctl with a recommended value distinct from the pass range.
func simpleSysctlWant(key string, ok func(int64) bool, want int64) func(*Ctx) []Outcome {
	return simpleSysctl(key, ok, want)
}
