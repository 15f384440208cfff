package loadgen

import (
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// WriteText prints the summary for people, in l: totals, latency
// percentiles, errors by kind, a JMeter-like per-label table and the
// per-second series. Error kinds, status codes and labels stay as they are
// (they are keys a script greps for), but for control characters, escaped.
func WriteText(w io.Writer, s *Summary, l finding.Lang) error {
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	b := &strings.Builder{}
	title := t("Load", "负载")
	switch {
	case s.Engine == "jmeter":
		title = t("Load sent by JMeter", "负载（由 JMeter 发送）")
	case s.Source != "load":
		title = t("Imported ", "导入 ") + s.Source
	}
	if s.Model != "" {
		model := s.Model
		switch s.Model {
		case "closed":
			model = t("closed model", "闭合模型")
		case "open":
			model = t("open model", "开放模型")
		}
		title += t(" (", " （") + model
		if s.Users > 0 {
			title += fmt.Sprintf(t(", %d users", "，%d 个用户"), s.Users)
		}
		if s.Open != nil {
			title += fmt.Sprintf(t(", %g req/s scheduled on %d connections", "，计划 %g 请求/秒，%d 个连接"), s.Open.Rate, s.Connections)
		}
		title += t(")", "）")
	}
	if s.Target != "" {
		title += " " + s.Target
	}
	fmt.Fprintln(b, title)
	if s.Interrupted {
		fmt.Fprintln(b, t("  interrupted: the results cover the time until Ctrl-C", "  已中断：结果只覆盖按下 Ctrl-C 之前的时间"))
	}
	fmt.Fprintf(b, t("  requests  %d in %.2fs = %.1f req/s", "  请求数    %d，用时 %.2fs = %.1f 请求/秒"), s.Requests, s.Duration, s.TPS)
	if s.Warmup > 0 || s.Aborted > 0 {
		fmt.Fprintf(b, t("  (excluded: %d warm-up, %d in flight at the end)", "（未计入：预热 %d 个，结束时仍在途 %d 个）"), s.Warmup, s.Aborted)
	}
	fmt.Fprintln(b)
	if rise, ok := s.StillRising(); ok {
		fmt.Fprintf(b, t("  NOT STEADY: throughput was still rising when the load ended (+%.0f%% across the seconds after its warm-up): the service had not warmed up (the JIT still compiling, pools or caches filling), so these figures are the warm-up's; lengthen --warm-up or -d\n",
			"  未达稳态：压测结束时吞吐量仍在上升（预热之后的各秒内上升了 %.0f%%）：服务尚未预热完成（JIT 仍在编译、连接池或缓存仍在填充），这些数字属于预热阶段；请加长 --warm-up 或 -d\n"), 100*rise)
	}
	if err := s.NoSuccess(); err != nil {
		fmt.Fprintf(b, "  %s %s\n", t("ERROR:", "错误："), finding.Localize(err, l))
	}
	if s.Aborted > 0 && s.NoAnswer() == nil {
		fmt.Fprintf(b, t("  never completed  %d of %d sent were still in flight at the end (%d without any response byte, %d inside an unfinished body)\n",
			"  未完成    已发送 %[2]d 个中有 %[1]d 个到结束时仍在途（%[3]d 个没有任何响应字节，%[4]d 个响应体未结束）\n"),
			s.Aborted, s.Sent(), s.Aborted-s.AbortedInBody, s.AbortedInBody)
	}
	fmt.Fprintf(b, t("  errors    %d (%.2f%%)", "  错误      %d(%.2f%%)"), s.Errors, s.ErrorPct)
	if len(s.ErrorKinds) > 0 {
		fmt.Fprintf(b, ": %s", kv(s.ErrorKinds))
	}
	fmt.Fprintln(b)
	if len(s.StatusCodes) > 0 {
		fmt.Fprintf(b, t("  status    %s\n", "  状态码    %s\n"), kv(s.StatusCodes))
	}
	if s.HTTP2Requests > 0 {
		fmt.Fprintf(b, t("  protocol  %d responses over HTTP/2\n", "  协议      %d 个响应走 HTTP/2\n"), s.HTTP2Requests)
	}
	fmt.Fprintf(b, t("  transfer  %s received, %s sent\n", "  传输      接收 %s，发送 %s\n"), units.FormatBytesScaled(float64(s.BytesIn), 1), units.FormatBytesScaled(float64(s.BytesOut), 1))
	lt := s.Latency
	fmt.Fprintf(b, t("  latency   mean %s  p50 %s  p90 %s  p95 %s  p99 %s  p99.9 %s  max %s\n", "  延迟      平均 %s  p50 %s  p90 %s  p95 %s  p99 %s  p99.9 %s  最大 %s\n"),
		ms(lt.Mean), ms(lt.P50), ms(lt.P90), ms(lt.P95), ms(lt.P99), ms(lt.P999), ms(lt.Max))
	if o := s.Open; o != nil {
		u := o.Uncorrected
		fmt.Fprintf(b, t("  (from actual send, uncorrected: p50 %s  p99 %s  max %s)\n", "  （从实际发送时刻算起，未校正：p50 %s  p99 %s  最大 %s）\n"), ms(u.P50), ms(u.P99), ms(u.Max))
		fmt.Fprintf(b, t("  schedule  %d due, %d sent, %d missed, %d late (>%v behind), lag mean %s max %s\n",
			"  计划      应发 %d，已发 %d，漏发 %d，迟发 %d（落后 >%v），平均滞后 %s，最大 %s\n"),
			o.Scheduled, o.Sent, o.Missed, o.Late, LateThreshold, ms(o.MeanLagMS), ms(o.MaxLagMS))
		switch o.Behind {
		case "server":
			fmt.Fprintln(b, t("  note: the server is not answering: its requests held every connection, so sends fell behind; the generator kept up (latency above counts the wait)",
				"  注意：服务端没有响应：它未响应的请求占住了所有连接，因此发送落后于计划；压测端本身跟得上（上面的延迟包含了这段等待）"))
		case "generator":
			fmt.Fprintln(b, t("  note: the generator fell behind its schedule; latency above counts the wait (more --connections, or a slower --rate)",
				"  注意：压测端落后于计划；上面的延迟包含了这段等待（增加 --connections，或降低 --rate）"))
		}
	}
	if s.Engine == "jmeter" {
		writeEngines(b, s, t)
	} else if s.ClientCPU > 0 {
		fmt.Fprintf(b, t("  generator CPU %.0f%% of %d cores", "  压测端 CPU 占 %[2]d 个核的 %.0[1]f%%"), s.ClientCPU, runtime.GOMAXPROCS(0))
		if s.ClientCPU >= 90 {
			fmt.Fprint(b, t(": saturated, so throughput and latency may be the generator's limits, not the server's", "：已饱和，吞吐与延迟可能是压测端的极限，而不是服务端的"))
		}
		fmt.Fprintln(b)
	}
	fmt.Fprintln(b)
	table := [][]string{strings.Split(t("Label|# Samples|Average|Median|90% Line|95% Line|99% Line|Min|Max|Error %|Throughput|Received KB/sec|Sent KB/sec",
		"标签|# 样本|平均值|中位数|90% 百分位|95% 百分位|99% 百分位|最小值|最大值|异常 %|吞吐量|接收 KB/sec|发送 KB/sec"), "|")}
	rows := append([]LabelStats(nil), s.Labels...)
	if len(rows) > 1 || len(rows) == 0 {
		rows = append(rows, LabelStats{Label: t("TOTAL", "总体"), Requests: s.Requests, Errors: s.Errors, ErrorPct: s.ErrorPct,
			TPS: s.TPS, Latency: s.Latency, RecvKBps: kbps(s.BytesIn, s.Duration), SentKBps: kbps(s.BytesOut, s.Duration)})
	}
	for _, r := range rows {
		table = append(table, []string{finding.SafeLine(r.Label), strconv.FormatInt(r.Requests, 10), num(r.Mean), num(r.P50), num(r.P90), num(r.P95), num(r.P99),
			num(r.Min), num(r.Max), fmt.Sprintf("%.2f%%", r.ErrorPct), fmt.Sprintf("%.1f/s", r.TPS), fmt.Sprintf("%.2f", r.RecvKBps), fmt.Sprintf("%.2f", r.SentKBps)})
	}
	writeTable(b, table)
	fmt.Fprintln(b, t("  (times in ms)", "  （时间单位：毫秒）"))
	if len(s.Series) > 0 {
		fmt.Fprintln(b)
		table = [][]string{strings.Split(t("second|requests|errors|mean|p50|p99|max", "秒|请求数|错误|平均|p50|p99|最大"), "|")}
		for _, p := range s.Series {
			table = append(table, []string{strconv.Itoa(p.T), strconv.FormatInt(p.Requests, 10), strconv.FormatInt(p.Errors, 10),
				num(p.Mean), num(p.P50), num(p.P99), num(p.Max)})
		}
		writeTable(b, table)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable right-aligns columns two spaces apart (finding.Columns:
// Chinese headers measured by their terminal width).
func writeTable(b *strings.Builder, rows [][]string) {
	for _, l := range finding.Columns(rows, "  ", func(int) bool { return true }) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// num prints milliseconds with about three significant digits.
func num(v float64) string {
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 1000:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

func kbps(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return round3(float64(n) / 1024 / secs)
}

func ms(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 10:
		return fmt.Sprintf("%.1fms", v)
	default:
		return fmt.Sprintf("%.3fms", v)
	}
}

// writeEngines says how JMeter's engines shared the load and what CPU
// each used, where it is known.
func writeEngines(b *strings.Builder, s *Summary, t func(en, zh string) string) {
	if s.ClientCPU > 0 {
		fmt.Fprintf(b, t("  JMeter CPU %.0f%% of this host's %d cores (its processes here)\n", "  JMeter CPU 占本机 %[2]d 个核的 %.0[1]f%%（本机上的 JMeter 进程）\n"), s.ClientCPU, runtime.NumCPU())
	}
	for _, e := range s.Engines {
		fmt.Fprintf(b, t("  engine %s: %d samples, %d threads", "  引擎 %s：%d 个样本，%d 个线程"), finding.SafeLine(e.Name), e.Samples, e.Users)
		if e.CPUPct >= 0 {
			fmt.Fprintf(b, t(", CPU %.0f%% of %d cores", "，CPU 占 %[2]d 个核的 %.0[1]f%%"), e.CPUPct, e.Cores)
		} else {
			fmt.Fprint(b, t(", CPU unknown (not on this host)", "，CPU 未知（不在本机）"))
		}
		fmt.Fprintln(b)
	}
}

func kv(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", finding.SafeLine(k), m[k])
	}
	return strings.Join(parts, " ")
}
