package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Thresholds of the NIC bandwidth rule, in percent of the link speed.
const (
	NICUtilPct     = 90.0
	NICCriticalPct = 97.0
)

// nicDir is one direction of a NIC's traffic.
type nicDir struct {
	name  string
	en    string
	zh    string
	bytes func(r *NICRate) float64
}

// nicDirs are receive and transmit: a full-duplex link saturates each on
// its own.
func nicDirs() [2]nicDir {
	return [2]nicDir{
		{"rx", "receive", "接收", func(r *NICRate) float64 { return r.RxBPS }},
		{"tx", "transmit", "发送", func(r *NICRate) float64 { return r.TxBPS }},
	}
}

// nicRate is the NIC's traffic in a tick (nil: no bytes moved).
func nicRate(t *Tick, name string) *NICRate {
	for k := range t.NICs {
		if t.NICs[k].Name == name {
			return &t.NICs[k]
		}
	}
	return nil
}

// nicUtil is a direction's share of the link speed in a tick, in percent.
func nicUtil(t *Tick, name string, d nicDir, speedMbps int) float64 {
	r := nicRate(t, name)
	if r == nil {
		return 0
	}
	return 100 * d.bytes(r) * 8 / (float64(speedMbps) * 1e6)
}

// ruleNICSaturated reports each NIC whose receive or transmit bytes stay
// near its link speed. Only NICs with a known speed count: virtual NICs
// (veth, virtio without a speed, tun) report none, and a guess would be a
// false root cause.
func ruleNICSaturated(c *ctx) []finding.Outcome {
	if !c.in.Facts.NICs.OK {
		return nil
	}
	var out []finding.Outcome
	for _, n := range c.in.Facts.NICs.Value {
		if n.Loopback || n.Name == "lo" || n.SpeedMbps <= 0 {
			continue
		}
		if f, ok := nicFinding(c, n); ok {
			out = append(out, f)
		}
	}
	return out
}

// nicSat is one saturated direction.
type nicSat struct {
	d          nicDir
	w          window
	mean, peak float64 // percent of the link speed
	meanBPS    float64
}

func nicFinding(c *ctx, n sysinfo.NIC) (finding.Outcome, bool) {
	var sats []nicSat
	for _, d := range nicDirs() {
		util := func(t *Tick) float64 { return nicUtil(t, n.Name, d, n.SpeedMbps) }
		w := sustained(c.ts, func(_ int, t *Tick) bool { return util(t) >= NICUtilPct })
		if !w.ok() {
			continue
		}
		sats = append(sats, nicSat{d: d, w: w, mean: w.mean(c.ts, util), peak: w.peak(c.ts, util),
			meanBPS: w.mean(c.ts, func(t *Tick) float64 { return d.bytes(nicRate(t, n.Name)) })})
	}
	if len(sats) == 0 {
		return finding.Outcome{}, false
	}
	// The busier direction leads (its window is the finding's).
	if len(sats) == 2 && sats[1].mean > sats[0].mean {
		sats[0], sats[1] = sats[1], sats[0]
	}
	top := sats[0]
	sev := finding.Warning
	var dirEN, dirZH, dirKey []string
	var obsEN, obsZH []string
	for _, s := range sats {
		if s.mean >= NICCriticalPct {
			sev = finding.Critical
		}
		dirEN, dirZH, dirKey = append(dirEN, s.d.en), append(dirZH, s.d.zh), append(dirKey, s.d.name)
		obsEN = append(obsEN, fmt.Sprintf("%s %s Mb/s (mean %s, peak %s of the link)", s.d.en, num(s.meanBPS*8/1e6), pct(s.mean), pct(s.peak)))
		obsZH = append(obsZH, fmt.Sprintf("%s %s Mb/s（平均占链路 %s，峰值 %s）", s.d.zh, num(s.meanBPS*8/1e6), pct(s.mean), pct(s.peak)))
	}
	speed := speedText(n.SpeedMbps)
	f := finding.Outcome{Status: finding.Fail, Severity: sev, SevSet: true, Subject: n.Name, Confidence: confidence(0.8, top.w),
		Title: finding.Text{EN: fmt.Sprintf("NIC %s saturated (%s at %s link speed)", n.Name, strings.Join(dirEN, " and "), speed.EN),
			ZH: fmt.Sprintf("网卡 %s 带宽饱和（%s，链路速率 %s）", n.Name, strings.Join(dirZH, "和"), speed.ZH)},
		Observed: finding.Text{
			EN: fmt.Sprintf("%s ran at its %s link speed: %s, over %s.", n.Name, speed.EN, strings.Join(obsEN, "; "), top.w.span().EN),
			ZH: fmt.Sprintf("%s 跑满了 %s 的链路速率：%s，%s。", n.Name, speed.ZH, strings.Join(obsZH, "；"), top.w.span().ZH)},
		Recommended: finding.Tf(finding.T("First check the negotiated speed matches the NIC and switch port (ethtool %[1]s: Speed vs Supported link modes; a 10G NIC at 1000Mb/s is a bad cable, module or port setting). Then send fewer bytes: compress responses (gzip/brotli on HTTP, compression in the RPC framework), return fewer fields and rows per response, cache on the client side. Or add bandwidth: a faster link, bonding several ports (mode 802.3ad, with the switch configured for LACP), or spreading the traffic over more NICs or hosts.",
			"先确认协商速率与网卡和交换机端口一致（ethtool %[1]s：Speed 与 Supported link modes 对比；万兆网卡只协商到 1000Mb/s 多半是线缆、光模块或端口配置问题）。再减少发送的字节：压缩响应（HTTP 的 gzip/brotli、RPC 框架的压缩）、每个响应少返回字段和行、在客户端缓存。或者增加带宽：更快的链路、多端口绑定（bond mode 802.3ad，交换机配置 LACP），或把流量分散到更多网卡或主机。"), n.Name)}
	src := "/proc/net/dev " + n.Name
	f.Window = top.w.timeSpan()
	f.Evidence = append(top.w.evidence(c.start), ev("nic", n.Name, "/sys/class/net/"+n.Name),
		ev("link_speed_mbps", strconv.Itoa(n.SpeedMbps), "/sys/class/net/"+n.Name+"/speed"),
		ev("direction", strings.Join(dirKey, "+"), src))
	for _, s := range sats {
		f.Evidence = append(f.Evidence, ev(s.d.name+"_mbps_mean", num(s.meanBPS*8/1e6), src),
			ev(s.d.name+"_util_pct_mean", pct(s.mean), src), ev(s.d.name+"_util_pct_peak", pct(s.peak), src))
	}
	return f, true
}

// speedText is a link speed as ethtool's users say it: 10 Mb/s, 1 Gb/s, 25 Gb/s.
func speedText(mbps int) finding.Text {
	if mbps >= 1000 && mbps%1000 == 0 {
		s := strconv.Itoa(mbps/1000) + " Gb/s"
		return finding.Text{EN: s, ZH: s}
	}
	s := strconv.Itoa(mbps) + " Mb/s"
	return finding.Text{EN: s, ZH: s}
}
