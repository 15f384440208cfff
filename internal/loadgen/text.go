package loadgen

import (
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
)

// WriteText prints the summary for people: totals, latency percentiles,
// errors by kind, a JMeter-like per-label table and the per-second series.
func WriteText(w io.Writer, s *Summary) error {
	b := &strings.Builder{}
	title := "Load"
	if s.Source != "load" {
		title = "Imported " + s.Source
	}
	if s.Model != "" {
		title += " (" + s.Model + " model"
		if s.Users > 0 {
			title += fmt.Sprintf(", %d users", s.Users)
		}
		if s.Open != nil {
			title += fmt.Sprintf(", %g req/s scheduled on %d connections", s.Open.Rate, s.Connections)
		}
		title += ")"
	}
	if s.Target != "" {
		title += " " + s.Target
	}
	fmt.Fprintln(b, title)
	if s.Interrupted {
		fmt.Fprintln(b, "  interrupted: the results cover the time until Ctrl-C")
	}
	fmt.Fprintf(b, "  requests  %d in %.2fs = %.1f req/s", s.Requests, s.Duration, s.TPS)
	if s.Warmup > 0 || s.Aborted > 0 {
		fmt.Fprintf(b, "  (excluded: %d warm-up, %d in flight at the end)", s.Warmup, s.Aborted)
	}
	fmt.Fprintln(b)
	fmt.Fprintf(b, "  errors    %d (%.2f%%)", s.Errors, s.ErrorPct)
	if len(s.ErrorKinds) > 0 {
		fmt.Fprintf(b, ": %s", kv(s.ErrorKinds))
	}
	fmt.Fprintln(b)
	if len(s.StatusCodes) > 0 {
		fmt.Fprintf(b, "  status    %s\n", kv(s.StatusCodes))
	}
	if s.HTTP2Requests > 0 {
		fmt.Fprintf(b, "  protocol  %d responses over HTTP/2\n", s.HTTP2Requests)
	}
	fmt.Fprintf(b, "  transfer  %.1f KB received, %.1f KB sent\n", float64(s.BytesIn)/1024, float64(s.BytesOut)/1024)
	l := s.Latency
	fmt.Fprintf(b, "  latency   mean %s  p50 %s  p90 %s  p95 %s  p99 %s  p99.9 %s  max %s\n",
		ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P95), ms(l.P99), ms(l.P999), ms(l.Max))
	if o := s.Open; o != nil {
		u := o.Uncorrected
		fmt.Fprintf(b, "  (from actual send, uncorrected: p50 %s  p99 %s  max %s)\n", ms(u.P50), ms(u.P99), ms(u.Max))
		fmt.Fprintf(b, "  schedule  %d due, %d sent, %d missed, %d late (>%v behind), lag mean %s max %s\n",
			o.Scheduled, o.Sent, o.Missed, o.Late, LateThreshold, ms(o.MeanLagMS), ms(o.MaxLagMS))
		if o.Missed > 0 || o.Late > o.Sent/100 {
			fmt.Fprintln(b, "  note: the generator fell behind its schedule; latency above counts the wait"+
				" (more --connections, or a slower --rate)")
		}
	}
	if s.ClientCPU > 0 {
		fmt.Fprintf(b, "  generator CPU %.0f%% of %d cores", s.ClientCPU, runtime.GOMAXPROCS(0))
		if s.ClientCPU >= 90 {
			fmt.Fprint(b, ": saturated, so throughput and latency may be the generator's limits, not the server's")
		}
		fmt.Fprintln(b)
	}
	fmt.Fprintln(b)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Label\t# Samples\tAverage\tMedian\t90% Line\t95% Line\t99% Line\tMin\tMax\tError %\tThroughput\tReceived KB/sec\tSent KB/sec\t")
	rows := append([]LabelStats(nil), s.Labels...)
	if len(rows) > 1 || len(rows) == 0 {
		rows = append(rows, LabelStats{Label: "TOTAL", Requests: s.Requests, Errors: s.Errors, ErrorPct: s.ErrorPct,
			TPS: s.TPS, Latency: s.Latency, RecvKBps: kbps(s.BytesIn, s.Duration), SentKBps: kbps(s.BytesOut, s.Duration)})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f%%\t%.1f/s\t%.2f\t%.2f\t\n",
			r.Label, r.Requests, num(r.Mean), num(r.P50), num(r.P90), num(r.P95), num(r.P99), num(r.Min), num(r.Max),
			r.ErrorPct, r.TPS, r.RecvKBps, r.SentKBps)
	}
	tw.Flush()
	fmt.Fprintln(b, "  (times in ms)")
	if len(s.Series) > 0 {
		fmt.Fprintln(b)
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "second\trequests\terrors\tmean\tp50\tp99\tmax\t")
		for _, p := range s.Series {
			fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", p.T, p.Requests, p.Errors, num(p.Mean), num(p.P50), num(p.P99), num(p.Max))
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
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

func kv(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
