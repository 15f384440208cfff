package promexport

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// rates is one 2-second tick as the recorder computes it on a 2-CPU host
// under load, with a hostile thread name (the target chooses its names).
func rates() *sample.Rates {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	cpu0 := sample.CPUPct{CPU: 0, User: 60, Nice: 5, System: 10, SoftIRQ: 5, Iowait: 5, Idle: 15}
	cpu1 := sample.CPUPct{CPU: 1, User: 20, System: 10, Idle: 70}
	all := sample.CPUPct{CPU: -1, User: 40, Nice: 2.5, System: 10, SoftIRQ: 2.5, Iowait: 2.5, Idle: 42.5}
	return &sample.Rates{From: t0, To: t0.Add(2 * time.Second), Seconds: 2,
		CPU:      &sample.CPURates{All: all, CPUs: []sample.CPUPct{cpu0, cpu1}},
		Load:     &sample.LoadAvg{Load1: 1.5, Load5: 0.75, Load15: 0.25},
		Softirqs: &sample.SoftirqRates{CPUs: []int{0, 1}, Rows: []sample.SoftirqRate{{Type: "NET_RX", PerSec: []float64{1000, 10}, Total: 1010}}},
		Disks:    []sample.DiskRate{{Name: "vda", RPS: 100, WPS: 50, RAwait: 2, WAwait: 8, AquSz: 1.5, Util: 40}},
		Net:      []sample.NetRate{{Name: "eth0", RxKBPS: 100, TxKBPS: 50, RxPPS: 800, TxPPS: 400}},
		TCP:      &sample.TCPRates{PerSec: map[string]float64{"Tcp.RetransSegs": 3, "TcpExt.ListenOverflows": 0.5}, Estab: 42},
		Proc:     &sample.ProcRate{CPUPct: 150, UserPct: 120, SysPct: 30, RSSKB: 2048, Threads: 57, FDs: 99},
		Threads: &sample.ThreadRates{Threads: []sample.ThreadRate{
			{TID: 101, Name: "http-nio-8080-exec-1", CPUPct: 90},
			{TID: 102, Name: "evil\"}\nname", CPUPct: 40},
			{TID: 103, Name: "idle", CPUPct: 0},
		}},
	}
}

func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("family %s missing", name)
	}
next:
	for _, m := range f.Metric {
		for k, v := range labels {
			found := false
			for _, l := range m.Label {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		}
	}
	t.Fatalf("%s%v not found", name, labels)
	return 0
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %g, want %g", what, got, want)
	}
}

func meminfo(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "meminfo")
	if err := os.WriteFile(p, []byte("MemTotal:        4000000 kB\nMemFree:          100000 kB\nMemAvailable:    3000000 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLiveMetrics scrapes /metrics over HTTP after two ticks and a second of
// load, and reads it with Prometheus' own parser.
func TestLiveMetrics(t *testing.T) {
	e := New(meminfo(t))
	srv, err := e.Serve("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	e.Tick(rates())
	e.Tick(rates())
	e.Load(loadgen.Progress{Warmup: true, Requests: 999}) // ignored
	e.Load(loadgen.Progress{Requests: 500, Errors: 2, Last: loadgen.Second{Requests: 500, Mean: 4, P50: 3, P99: 25, Max: 40}})
	e.Load(loadgen.Progress{Requests: 800, Errors: 2, Last: loadgen.Second{Requests: 300, Mean: 5, P50: 4, P99: 30, Max: 50}})
	e.Load(loadgen.Progress{Requests: 100, Errors: 0, Last: loadgen.Second{Requests: 100, Mean: 5, P50: 4, P99: 30, Max: 50}}) // a new load (--repeat)
	e.Load(loadgen.Progress{Requests: 300, Errors: 0, Last: loadgen.Second{Requests: 200, Mean: 5, P50: 4, P99: 30, Max: 50}})

	resp, err := http.Get("http://" + srv.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, body)
	}
	// Two ticks of 2 s at 65% user (user + nice) on CPU 0: 2.6 s.
	near(t, "cpu0 user seconds", value(t, fams, "tuneloop_cpu_seconds_total", map[string]string{"cpu": "0", "mode": "user"}), 2.6)
	near(t, "all idle seconds", value(t, fams, "tuneloop_cpu_seconds_total", map[string]string{"cpu": "all", "mode": "idle"}), 1.7)
	near(t, "cpu0 busy", value(t, fams, "tuneloop_cpu_busy_ratio", map[string]string{"cpu": "0"}), 0.8)
	near(t, "NET_RX on cpu0", value(t, fams, "tuneloop_softirqs_total", map[string]string{"cpu": "0", "type": "NET_RX"}), 4000)
	near(t, "load1", value(t, fams, "tuneloop_load1", nil), 1.5)
	near(t, "mem total", value(t, fams, "tuneloop_memory_total_bytes", nil), 4000000*1024)
	near(t, "mem avail", value(t, fams, "tuneloop_memory_available_bytes", nil), 3000000*1024)
	near(t, "vda util", value(t, fams, "tuneloop_disk_utilization_ratio", map[string]string{"device": "vda"}), 0.4)
	near(t, "vda write await", value(t, fams, "tuneloop_disk_await_seconds", map[string]string{"device": "vda", "op": "write"}), 0.008)
	near(t, "vda ops", value(t, fams, "tuneloop_disk_io_operations_total", map[string]string{"device": "vda"}), 600)
	near(t, "eth0 rx bytes", value(t, fams, "tuneloop_network_receive_bytes_total", map[string]string{"nic": "eth0"}), 4*100*1024)
	near(t, "eth0 tx packets", value(t, fams, "tuneloop_network_transmit_packets_total", map[string]string{"nic": "eth0"}), 1600)
	near(t, "retransmits", value(t, fams, "tuneloop_tcp_retransmitted_segments_total", nil), 12)
	near(t, "listen overflows", value(t, fams, "tuneloop_tcp_listen_overflows_total", nil), 2)
	near(t, "estab", value(t, fams, "tuneloop_tcp_established_connections", nil), 42)
	near(t, "target cpu", value(t, fams, "tuneloop_target_cpu_usage_ratio", nil), 1.5)
	near(t, "target user seconds", value(t, fams, "tuneloop_target_cpu_seconds_total", map[string]string{"mode": "user"}), 4.8)
	near(t, "target rss", value(t, fams, "tuneloop_target_resident_memory_bytes", nil), 2048*1024)
	near(t, "target threads", value(t, fams, "tuneloop_target_threads", nil), 57)
	near(t, "target fds", value(t, fams, "tuneloop_target_open_fds", nil), 99)
	near(t, "top thread", value(t, fams, "tuneloop_target_thread_cpu_usage_ratio", map[string]string{"tid": "101", "thread": "http-nio-8080-exec-1"}), 0.9)
	if n := len(fams["tuneloop_target_thread_cpu_usage_ratio"].Metric); n != 2 {
		t.Errorf("%d thread series, want 2 (an idle thread gets none)", n)
	}
	checkMetrics(t, body)
	if strings.Contains(string(body), "\nname") {
		t.Errorf("a thread name's newline reached the exposition:\n%s", body)
	}
	near(t, "requests", value(t, fams, "tuneloop_load_requests_total", nil), 1100)
	near(t, "errors", value(t, fams, "tuneloop_load_errors_total", nil), 2)
	near(t, "p99", value(t, fams, "tuneloop_load_latency_seconds", map[string]string{"stat": "p99"}), 0.030)
	near(t, "rps", value(t, fams, "tuneloop_load_requests_per_second", nil), 200)

	// Every family exposed is documented in Families, with its type.
	doc := map[string]string{}
	for _, f := range Families() {
		doc[f.Name] = f.Type
	}
	for name, f := range fams {
		if typ, ok := doc[name]; !ok || !strings.EqualFold(typ, f.GetType().String()) {
			t.Errorf("family %s (%s) not documented as such (%q)", name, f.GetType(), typ)
		}
	}

	// The OpenMetrics flavour, asked for by a scraper, ends with # EOF.
	req, _ := http.NewRequest("GET", "http://"+srv.Addr()+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/openmetrics-text") || !strings.HasSuffix(string(body), "# EOF\n") {
		t.Errorf("OpenMetrics scrape: %s, ends %q", resp.Header.Get("Content-Type"), body[max(0, len(body)-20):])
	}
	if err := srv.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// TestTextfile writes the textfile twice and reads the result as the
// node_exporter collector would: a complete file, no temporary left over.
func TestTextfile(t *testing.T) {
	dir := t.TempDir()
	e := New(meminfo(t))
	e.Tick(rates())
	if err := e.WriteTextfile(dir); err != nil {
		t.Fatal(err)
	}
	e.Tick(rates())
	if err := e.WriteTextfile(dir); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != TextfileName {
		t.Fatalf("folder holds %v, want only %s", ents, TextfileName)
	}
	b, err := os.ReadFile(filepath.Join(dir, TextfileName))
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	near(t, "cpu1 system seconds", value(t, fams, "tuneloop_cpu_seconds_total", map[string]string{"cpu": "1", "mode": "system"}), 0.4)
	for _, f := range fams {
		for _, m := range f.Metric {
			if m.TimestampMs != nil {
				t.Fatalf("%s carries a timestamp: the textfile collector refuses those", f.GetName())
			}
		}
	}
	if err := e.WriteTextfile(filepath.Join(dir, "missing")); err == nil {
		t.Error("writing into a missing folder did not fail")
	}
}

func TestMemBytes(t *testing.T) {
	if _, _, ok := memBytes([]byte("MemTotal: 10 kB\n")); ok {
		t.Error("no MemAvailable (kernels before 3.14) was taken as known")
	}
	tot, av, ok := memBytes([]byte("MemTotal:       24684096 kB\nbogus\nMemAvailable:   24338056 kB\n"))
	if !ok || tot != 24684096*1024 || av != 24338056*1024 {
		t.Errorf("got %d %d %v", tot, av, ok)
	}
}

// TestOpenMetricsExport writes real recorded runs as OpenMetrics and has
// the real promtool check them and build TSDB blocks from them.
func TestOpenMetricsExport(t *testing.T) {
	for _, name := range []string{"cpu-hot", "disk-dd"} {
		t.Run(name, func(t *testing.T) {
			L, err := verdict.Load(filepath.Join("..", "verdict", "testdata", "runs", name))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteOpenMetrics(&buf, L.Series, L.Load); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !strings.HasSuffix(out, "# EOF\n") {
				t.Fatal("no # EOF at the end")
			}
			checkOrder(t, out)
			if !strings.Contains(out, "# TYPE tuneloop_cpu_seconds counter\n") || !strings.Contains(out, `tuneloop_cpu_seconds_total{cpu="all",mode="user"} `) {
				t.Errorf("no CPU counter family:\n%.600s", out)
			}
			if L.Load != nil && !strings.Contains(out, "tuneloop_load_requests_total ") {
				t.Error("the run's load is missing")
			}
			promtool(t, out)
		})
	}
}

// checkOrder asserts each series' samples are contiguous and in time order.
func checkOrder(t *testing.T, out string) {
	t.Helper()
	seen := map[string]bool{}
	last, lastTS := "", ""
	for _, line := range strings.Split(out, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		j := strings.LastIndexByte(line[:i], ' ')
		series, ts := line[:j], line[i+1:]
		if series != last {
			if seen[series] {
				t.Fatalf("series %s comes back after another", series)
			}
			seen[series], last, lastTS = true, series, ""
		}
		if lastTS != "" && !(len(ts) > len(lastTS) || (len(ts) == len(lastTS) && ts > lastTS)) {
			t.Fatalf("%s: %s after %s", series, ts, lastTS)
		}
		lastTS = ts
	}
	if len(seen) < 10 {
		t.Errorf("only %d series", len(seen))
	}
}

func promtoolBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (apt-get install -y prometheus; .ci/run does): " + err.Error())
	}
	return bin
}

// checkMetrics lints a scrape with the real promtool (names, units, help);
// it reads the Prometheus text format, so the live scrape, not the export
// whose OpenMetrics timestamps it does not take.
func checkMetrics(t *testing.T, scrape []byte) {
	t.Helper()
	cmd := exec.Command(promtoolBin(t), "check", "metrics")
	cmd.Stdin = bytes.NewReader(scrape)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, b)
	}
}

func promtool(t *testing.T, out string) {
	t.Helper()
	bin := promtoolBin(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "run.om")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks := filepath.Join(dir, "blocks")
	b, err := exec.Command(bin, "tsdb", "create-blocks-from", "openmetrics", file, blocks).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, b)
	}
	ents, _ := os.ReadDir(blocks)
	var metas int
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(blocks, e.Name(), "meta.json")); err == nil {
			metas++
		}
	}
	if metas == 0 {
		t.Errorf("promtool made no block:\n%s", b)
	}
}
