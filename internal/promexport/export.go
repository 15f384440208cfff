package promexport

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// point is one timestamped value of one series.
type point struct {
	t time.Time
	v float64
}

// exportSeries is one label set of a family with its points in time order.
type exportSeries struct {
	labels []string // values, in the family's label order
	points []point
	sum    float64 // counters: the running total
}

// exportFamily collects a family's series in first-seen order.
type exportFamily struct {
	byKey map[string]*exportSeries
	order []*exportSeries
}

type exporter struct {
	fams map[string]*exportFamily
}

func (x *exporter) series(name string, labels []string) *exportSeries {
	f := x.fams[name]
	if f == nil {
		f = &exportFamily{byKey: map[string]*exportSeries{}}
		x.fams[name] = f
	}
	k := strings.Join(labels, "\x00")
	s := f.byKey[k]
	if s == nil {
		s = &exportSeries{labels: labels}
		f.byKey[k] = s
		f.order = append(f.order, s)
	}
	return s
}

func (x *exporter) gauge(name string, t time.Time, v float64, labels ...string) {
	s := x.series(name, labels)
	s.points = append(s.points, point{t, v})
}

// counter adds inc (a rate times the tick) to a running total that starts
// at zero with the run.
func (x *exporter) counter(name string, t time.Time, inc float64, labels ...string) {
	s := x.series(name, labels)
	if inc > 0 {
		s.sum += inc
	}
	s.points = append(s.points, point{t, s.sum})
}

// WriteOpenMetrics writes a finished run's series (and its load, if any) as
// OpenMetrics text with a timestamp on every sample, ending with "# EOF":
// the input of `promtool tsdb create-blocks-from openmetrics`. The families
// and names are the live exporter's (Families), limited to what the run
// folder keeps: no per-NIC traffic, no memory total, no established count.
// Each series is written whole, in time order, before the next.
func WriteOpenMetrics(w io.Writer, s *diagnose.Series, load *loadgen.Summary) error {
	x := &exporter{fams: map[string]*exportFamily{}}
	if s != nil {
		for i := range s.Ticks {
			x.tick(s.CPUs, &s.Ticks[i])
		}
	}
	if load != nil && !load.Start.IsZero() {
		x.load(load)
	}
	bw := bufio.NewWriter(w)
	for _, f := range Families() {
		fam := x.fams[f.Name]
		if fam == nil {
			continue
		}
		name := f.Name
		if f.Type == "counter" {
			name = strings.TrimSuffix(name, "_total")
		}
		fmt.Fprintf(bw, "# TYPE %s %s\n# HELP %s %s\n", name, f.Type, name, escapeHelp(f.Help))
		for _, es := range fam.order {
			lbl := labelString(f.Labels, es.labels)
			for _, p := range es.points {
				fmt.Fprintf(bw, "%s%s %s %s\n", f.Name, lbl, formatFloat(p.v),
					strconv.FormatFloat(float64(p.t.UnixMilli())/1000, 'f', 3, 64))
			}
		}
	}
	bw.WriteString("# EOF\n")
	return bw.Flush()
}

func (x *exporter) tick(cpus []int, t *diagnose.Tick) {
	ts, secs := t.T, t.Secs
	if ts.IsZero() || secs <= 0 {
		return
	}
	cpu := func(label string, c diagnose.CPU) {
		for _, m := range []struct {
			mode string
			pct  float64
		}{{"user", c.User}, {"system", c.System}, {"irq", c.IRQ}, {"softirq", c.Soft},
			{"iowait", c.Iowait}, {"steal", c.Steal}, {"idle", c.Idle}} {
			x.counter("tuneloop_cpu_seconds_total", ts, m.pct/100*secs, label, m.mode)
		}
		x.gauge("tuneloop_cpu_busy_ratio", ts, c.Busy()/100, label)
	}
	if t.All != nil {
		cpu("all", *t.All)
	}
	for i, c := range t.CPUs {
		if i < len(cpus) {
			cpu(strconv.Itoa(cpus[i]), c)
		}
	}
	types := make([]string, 0, len(t.Softirq))
	for k := range t.Softirq {
		types = append(types, k)
	}
	sort.Strings(types)
	for _, typ := range types {
		for i, ps := range t.Softirq[typ] {
			if i < len(cpus) {
				x.counter("tuneloop_softirqs_total", ts, ps*secs, strconv.Itoa(cpus[i]), typ)
			}
		}
	}
	x.gauge("tuneloop_load1", ts, t.Load1)
	if t.MemAvail > 0 {
		x.gauge("tuneloop_memory_available_bytes", ts, float64(t.MemAvail)*1024)
	}
	for _, d := range t.Disks {
		x.gauge("tuneloop_disk_utilization_ratio", ts, d.Util/100, d.Name)
		x.gauge("tuneloop_disk_await_seconds", ts, d.RAwait/1000, d.Name, "read")
		x.gauge("tuneloop_disk_await_seconds", ts, d.WAwait/1000, d.Name, "write")
		x.gauge("tuneloop_disk_queue_length", ts, d.AquSz, d.Name)
		x.counter("tuneloop_disk_io_operations_total", ts, d.IOPS*secs, d.Name)
	}
	if c := t.TCP; c != nil {
		x.counter("tuneloop_tcp_retransmitted_segments_total", ts, c.RetransPS*secs)
		x.counter("tuneloop_tcp_listen_overflows_total", ts, c.ListenOverflowsPS*secs)
	}
	if p := t.Proc; p != nil {
		x.counter("tuneloop_target_cpu_seconds_total", ts, p.UserPct/100*secs, "user")
		x.counter("tuneloop_target_cpu_seconds_total", ts, p.SysPct/100*secs, "system")
		x.gauge("tuneloop_target_cpu_usage_ratio", ts, p.CPUPct/100)
		x.gauge("tuneloop_target_resident_memory_bytes", ts, float64(p.RSSKB)*1024)
		x.gauge("tuneloop_target_threads", ts, float64(p.Threads))
		if p.FDs >= 0 {
			x.gauge("tuneloop_target_open_fds", ts, float64(p.FDs))
		}
	}
	if th := t.Threads; th != nil {
		for _, tt := range th.Top {
			x.gauge("tuneloop_target_thread_cpu_usage_ratio", ts, tt.CPUPct/100, strconv.Itoa(tt.TID), finding.SafeLine(tt.Name))
		}
	}
}

// load places each second of the load at the end of that second: Second.T
// counts seconds from the start of the measured load.
func (x *exporter) load(l *loadgen.Summary) {
	for _, s := range l.Series {
		ts := l.Start.Add(time.Duration(s.T+1) * time.Second)
		x.counter("tuneloop_load_requests_total", ts, float64(s.Requests))
		x.counter("tuneloop_load_errors_total", ts, float64(s.Errors))
		x.gauge("tuneloop_load_requests_per_second", ts, float64(s.Requests))
		if s.Requests > 0 {
			x.gauge("tuneloop_load_latency_seconds", ts, s.Mean/1000, "mean")
			x.gauge("tuneloop_load_latency_seconds", ts, s.P50/1000, "p50")
			x.gauge("tuneloop_load_latency_seconds", ts, s.P99/1000, "p99")
			x.gauge("tuneloop_load_latency_seconds", ts, s.Max/1000, "max")
		}
	}
}

func labelString(names, values []string) string {
	if len(names) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		v := ""
		if i < len(values) {
			v = values[i]
		}
		b.WriteString(n + `="` + escapeLabel(v) + `"`)
	}
	b.WriteByte('}')
	return b.String()
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }

var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)

func escapeHelp(s string) string { return helpEscaper.Replace(s) }

func formatFloat(v float64) string {
	switch {
	case v != v:
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
