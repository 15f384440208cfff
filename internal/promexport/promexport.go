// Package promexport turns what the recorder samples each tick, and the load
// generator's live numbers, into Prometheus metrics: served live on /metrics
// (Serve), written as node_exporter textfile-collector files (WriteTextfile),
// or, for a finished run, as an OpenMetrics file with timestamps that
// `promtool tsdb create-blocks-from openmetrics` loads (WriteOpenMetrics).
//
// Names follow the Prometheus conventions: base units (seconds, bytes,
// ratios 0..1), `_total` counters where the kernel keeps a counter (the
// counters start at zero when tuneloop starts and grow by rate x interval
// each tick, so rate() gives back the sampled rate), gauges for shares,
// levels and latencies. Labels: cpu ("all" for the whole host), mode,
// type (softirq), device (disk), nic, op (read/write), tid and thread (a
// target thread), stat (load latency). Every family is listed in Families,
// which README.md's table mirrors.
//
//	tuneloop_cpu_seconds_total{cpu,mode}           counter  CPU time by mode (user includes nice)
//	tuneloop_cpu_busy_ratio{cpu}                   gauge    busy share of the last tick (1 - idle - iowait)
//	tuneloop_softirqs_total{cpu,type}              counter  softirqs handled
//	tuneloop_load1 / _load5 / _load15              gauge    load average
//	tuneloop_memory_total_bytes / _available_bytes gauge    /proc/meminfo MemTotal, MemAvailable
//	tuneloop_disk_utilization_ratio{device}        gauge    share of the tick with I/O in flight
//	tuneloop_disk_await_seconds{device,op}         gauge    mean time per request (queue + service)
//	tuneloop_disk_queue_length{device}             gauge    average requests in flight
//	tuneloop_disk_io_operations_total{device}      counter  reads + writes completed
//	tuneloop_network_{receive,transmit}_bytes_total{nic}   counter
//	tuneloop_network_{receive,transmit}_packets_total{nic} counter
//	tuneloop_tcp_retransmitted_segments_total      counter
//	tuneloop_tcp_listen_overflows_total            counter  accept queue full
//	tuneloop_tcp_established_connections           gauge
//	tuneloop_target_cpu_seconds_total{mode}        counter  the target process, user and system
//	tuneloop_target_cpu_usage_ratio                gauge    of one CPU: 2.5 = two and a half cores
//	tuneloop_target_resident_memory_bytes          gauge
//	tuneloop_target_threads / _open_fds            gauge
//	tuneloop_target_thread_cpu_usage_ratio{tid,thread} gauge the top threads of the last tick
//	tuneloop_load_requests_total / _errors_total   counter  the load generator (run only)
//	tuneloop_load_latency_seconds{stat}            gauge    mean, p50, p99, max over the last second
//	tuneloop_load_requests_per_second              gauge    over the last second
package promexport

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// TopThreads is how many of the target's threads get their own series:
// a bounded label set, so a JVM with 2000 threads does not flood Prometheus.
const TopThreads = 10

// TextfileName is the file WriteTextfile writes in its folder.
const TextfileName = "tuneloop.prom"

// Family is one metric family: its name as exposed (counters with _total),
// type, labels and help.
type Family struct {
	Name   string
	Type   string // counter or gauge
	Labels []string
	Help   string
}

// Families lists every family the live exporter may expose, in README order.
func Families() []Family {
	return []Family{
		{"tuneloop_cpu_seconds_total", "counter", []string{"cpu", "mode"}, "CPU time spent in each mode (user includes nice), seconds; cpu=\"all\" is the whole host"},
		{"tuneloop_cpu_busy_ratio", "gauge", []string{"cpu"}, "Busy share of the last tick: 1 - idle - iowait"},
		{"tuneloop_softirqs_total", "counter", []string{"cpu", "type"}, "Softirqs handled, by CPU and type (NET_RX, TIMER, ...)"},
		{"tuneloop_load1", "gauge", nil, "Load average over 1 minute"},
		{"tuneloop_load5", "gauge", nil, "Load average over 5 minutes"},
		{"tuneloop_load15", "gauge", nil, "Load average over 15 minutes"},
		{"tuneloop_memory_total_bytes", "gauge", nil, "MemTotal from /proc/meminfo"},
		{"tuneloop_memory_available_bytes", "gauge", nil, "MemAvailable from /proc/meminfo"},
		{"tuneloop_disk_utilization_ratio", "gauge", []string{"device"}, "Share of the last tick the device had I/O in flight"},
		{"tuneloop_disk_await_seconds", "gauge", []string{"device", "op"}, "Mean time per read or write over the last tick, queue plus service"},
		{"tuneloop_disk_queue_length", "gauge", []string{"device"}, "Average number of requests in flight over the last tick"},
		{"tuneloop_disk_io_operations_total", "counter", []string{"device"}, "Reads and writes completed"},
		{"tuneloop_network_receive_bytes_total", "counter", []string{"nic"}, "Bytes received"},
		{"tuneloop_network_transmit_bytes_total", "counter", []string{"nic"}, "Bytes sent"},
		{"tuneloop_network_receive_packets_total", "counter", []string{"nic"}, "Packets received"},
		{"tuneloop_network_transmit_packets_total", "counter", []string{"nic"}, "Packets sent"},
		{"tuneloop_tcp_retransmitted_segments_total", "counter", nil, "TCP segments retransmitted (Tcp RetransSegs)"},
		{"tuneloop_tcp_listen_overflows_total", "counter", nil, "Connections dropped because a listen (accept) queue was full (TcpExt ListenOverflows)"},
		{"tuneloop_tcp_established_connections", "gauge", nil, "TCP connections established (Tcp CurrEstab)"},
		{"tuneloop_target_cpu_seconds_total", "counter", []string{"mode"}, "CPU time of the target process, user and system, seconds"},
		{"tuneloop_target_cpu_usage_ratio", "gauge", nil, "CPU of the target process over the last tick, in CPUs (2.5 = two and a half cores)"},
		{"tuneloop_target_resident_memory_bytes", "gauge", nil, "Resident set size of the target process"},
		{"tuneloop_target_threads", "gauge", nil, "Threads of the target process"},
		{"tuneloop_target_open_fds", "gauge", nil, "Open file descriptors of the target process"},
		{"tuneloop_target_thread_cpu_usage_ratio", "gauge", []string{"tid", "thread"}, "CPU of the target's busiest threads over the last tick, in CPUs"},
		{"tuneloop_load_requests_total", "counter", nil, "Requests the load generator completed (measured, warm-up excluded)"},
		{"tuneloop_load_errors_total", "counter", nil, "Requests that failed"},
		{"tuneloop_load_latency_seconds", "gauge", []string{"stat"}, "Latency over the last second: stat is mean, p50, p99 or max"},
		{"tuneloop_load_requests_per_second", "gauge", nil, "Requests completed in the last second"},
	}
}

// Exporter holds the live metrics in a registry of its own (never the
// global default one). It is safe for concurrent use: the recorder's tick,
// the load generator's second and a scrape may run at the same time.
type Exporter struct {
	reg     *prometheus.Registry
	meminfo string

	mu       sync.Mutex // serialises Tick and Load (threads reset, deltas)
	lastReqs int64
	lastErrs int64

	counters map[string]*prometheus.CounterVec
	gauges   map[string]*prometheus.GaugeVec
}

// New builds an exporter whose families are Families(). meminfo is the
// /proc/meminfo to read host memory from each tick ("" = /proc/meminfo):
// the recorder's rates carry no memory levels.
func New(meminfo string) *Exporter {
	if meminfo == "" {
		meminfo = "/proc/meminfo"
	}
	e := &Exporter{reg: prometheus.NewRegistry(), meminfo: meminfo,
		counters: map[string]*prometheus.CounterVec{}, gauges: map[string]*prometheus.GaugeVec{}}
	for _, f := range Families() {
		switch f.Type {
		case "counter":
			v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: f.Name, Help: f.Help}, f.Labels)
			e.reg.MustRegister(v)
			e.counters[f.Name] = v
		default:
			v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: f.Name, Help: f.Help}, f.Labels)
			e.reg.MustRegister(v)
			e.gauges[f.Name] = v
		}
	}
	return e
}

// Registry is the exporter's own registry (for a handler or a test).
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

func (e *Exporter) add(name string, v float64, labels ...string) {
	if v > 0 { // a counter never goes down; a reset interval adds nothing
		e.counters[name].WithLabelValues(labels...).Add(v)
	}
}

func (e *Exporter) set(name string, v float64, labels ...string) {
	e.gauges[name].WithLabelValues(labels...).Set(v)
}

// Tick folds one interval of the recorder's rates into the metrics.
func (e *Exporter) Tick(r *sample.Rates) {
	if r == nil || r.Seconds <= 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	secs := r.Seconds
	if c := r.CPU; c != nil {
		e.cpu("all", c.All, secs)
		for _, p := range c.CPUs {
			if !p.New && !p.Reset {
				e.cpu(strconv.Itoa(p.CPU), p, secs)
			}
		}
	}
	if s := r.Softirqs; s != nil {
		for _, row := range s.Rows {
			if row.Reset {
				continue
			}
			for i, ps := range row.PerSec {
				if i < len(s.CPUs) {
					e.add("tuneloop_softirqs_total", ps*secs, strconv.Itoa(s.CPUs[i]), row.Type)
				}
			}
		}
	}
	if l := r.Load; l != nil {
		e.set("tuneloop_load1", l.Load1)
		e.set("tuneloop_load5", l.Load5)
		e.set("tuneloop_load15", l.Load15)
	}
	if total, avail, ok := readMem(e.meminfo); ok {
		e.set("tuneloop_memory_total_bytes", float64(total))
		e.set("tuneloop_memory_available_bytes", float64(avail))
	}
	for _, d := range r.Disks {
		if d.New || d.Reset {
			continue
		}
		e.set("tuneloop_disk_utilization_ratio", d.Util/100, d.Name)
		e.set("tuneloop_disk_await_seconds", d.RAwait/1000, d.Name, "read")
		e.set("tuneloop_disk_await_seconds", d.WAwait/1000, d.Name, "write")
		e.set("tuneloop_disk_queue_length", d.AquSz, d.Name)
		e.add("tuneloop_disk_io_operations_total", (d.RPS+d.WPS)*secs, d.Name)
	}
	for _, n := range r.Net {
		if n.New || n.Reset {
			continue
		}
		e.add("tuneloop_network_receive_bytes_total", n.RxKBPS*1024*secs, n.Name)
		e.add("tuneloop_network_transmit_bytes_total", n.TxKBPS*1024*secs, n.Name)
		e.add("tuneloop_network_receive_packets_total", n.RxPPS*secs, n.Name)
		e.add("tuneloop_network_transmit_packets_total", n.TxPPS*secs, n.Name)
	}
	if t := r.TCP; t != nil {
		e.add("tuneloop_tcp_retransmitted_segments_total", t.PerSec["Tcp.RetransSegs"]*secs)
		e.add("tuneloop_tcp_listen_overflows_total", t.PerSec["TcpExt.ListenOverflows"]*secs)
		e.set("tuneloop_tcp_established_connections", float64(t.Estab))
	}
	if p := r.Proc; p != nil {
		e.set("tuneloop_target_resident_memory_bytes", float64(p.RSSKB)*1024)
		e.set("tuneloop_target_threads", float64(p.Threads))
		if p.FDs >= 0 {
			e.set("tuneloop_target_open_fds", float64(p.FDs))
		}
		if !p.Reset {
			e.add("tuneloop_target_cpu_seconds_total", p.UserPct/100*secs, "user")
			e.add("tuneloop_target_cpu_seconds_total", p.SysPct/100*secs, "system")
			e.set("tuneloop_target_cpu_usage_ratio", p.CPUPct/100)
		}
	}
	if t := r.Threads; t != nil {
		// Only this tick's busiest threads: last tick's leave the exposition.
		g := e.gauges["tuneloop_target_thread_cpu_usage_ratio"]
		g.Reset()
		for _, th := range topThreads(t.Threads, TopThreads) {
			g.WithLabelValues(strconv.Itoa(th.TID), finding.SafeLine(th.Name)).Set(th.CPUPct / 100)
		}
	}
}

func (e *Exporter) cpu(label string, p sample.CPUPct, secs float64) {
	for _, m := range []struct {
		mode string
		pct  float64
	}{{"user", p.User + p.Nice}, {"system", p.System}, {"irq", p.IRQ}, {"softirq", p.SoftIRQ},
		{"iowait", p.Iowait}, {"steal", p.Steal}, {"idle", p.Idle}} {
		e.add("tuneloop_cpu_seconds_total", m.pct/100*secs, label, m.mode)
	}
	e.set("tuneloop_cpu_busy_ratio", min(max(p.Busy()/100, 0), 1), label)
}

// topThreads are the n threads with the most CPU, busiest first.
func topThreads(ts []sample.ThreadRate, n int) []sample.ThreadRate {
	out := make([]sample.ThreadRate, 0, min(n, len(ts)))
	for _, t := range ts {
		if t.CPUPct <= 0 {
			continue
		}
		i := len(out)
		for i > 0 && out[i-1].CPUPct < t.CPUPct {
			i--
		}
		if i >= n {
			continue
		}
		out = append(out, sample.ThreadRate{})
		copy(out[i+1:], out[i:])
		out[i] = t
		if len(out) > n {
			out = out[:n]
		}
	}
	return out
}

// Load folds one second of the load generator into the metrics.
func (e *Exporter) Load(p loadgen.Progress) {
	if p.Warmup {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	// Progress counts since its load began: a smaller count is a new load.
	since := func(now, last int64) float64 {
		if now < last {
			return float64(now)
		}
		return float64(now - last)
	}
	e.add("tuneloop_load_requests_total", since(p.Requests, e.lastReqs))
	e.add("tuneloop_load_errors_total", since(p.Errors, e.lastErrs))
	e.lastReqs, e.lastErrs = p.Requests, p.Errors
	e.set("tuneloop_load_requests_per_second", float64(p.Last.Requests))
	if p.Last.Requests > 0 {
		for _, s := range []struct {
			stat string
			ms   float64
		}{{"mean", p.Last.Mean}, {"p50", p.Last.P50}, {"p99", p.Last.P99}, {"max", p.Last.Max}} {
			e.set("tuneloop_load_latency_seconds", s.ms/1000, s.stat)
		}
	}
}

// WriteTextfile writes the current metrics to DIR/tuneloop.prom for the
// node_exporter textfile collector: a temporary file in DIR renamed over
// the old one, so the collector never reads half a file.
func (e *Exporter) WriteTextfile(dir string) error {
	if err := prometheus.WriteToTextfile(filepath.Join(dir, TextfileName), e.reg); err != nil {
		return fmt.Errorf("prometheus textfile: %w", err)
	}
	return nil
}

// readMem reads MemTotal and MemAvailable (kB) as bytes, through
// sample.ParseMeminfo, the one /proc/meminfo parser. A malformed line
// elsewhere in the file does not hide the two (the parser reads on).
func readMem(path string) (total, avail uint64, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	return memBytes(b)
}

// memBytes picks the two gauges out of a /proc/meminfo; ok is false when
// either is missing (MemAvailable came with Linux 3.14).
func memBytes(b []byte) (total, avail uint64, ok bool) {
	m := make(map[string]uint64, 64)
	_ = sample.ParseMeminfo(b, m)
	total, ok1 := m["MemTotal"]
	avail, ok2 := m["MemAvailable"]
	return total * 1024, avail * 1024, ok1 && ok2
}
