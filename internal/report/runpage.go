package report

import (
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// RunPageSchema names RunPage's JSON (docs/schema/run-page-v1.schema.json).
const RunPageSchema = "tuneloop.run-page/v1"

// RunPage is everything the report of one `tuneloop run` shows, already
// reduced to what the charts and tables draw. The run command builds it
// from the run folder; WriteRun (text, Markdown, JSON) and html.WriteRun
// render it. Every string in it may come from the target (thread names, URLs,
// lock classes) and must be escaped by the renderer.
type RunPage struct {
	Schema string       `json:"schema"` // tuneloop.run-page/v1
	Lang   finding.Lang `json:"lang"`
	// Title names the run, e.g. "sync-logging @ http://127.0.0.1:8080/api".
	Title string `json:"title"`
	// Run is the header (host, times, command, status) and every finding,
	// ranked, root cause first.
	Run *RunSummary `json:"run"`
	// Verdict is the one-paragraph conclusion at the top: the root cause
	// with the evidence of each layer that supports it (nil: nothing found).
	Verdict *finding.Finding `json:"verdict,omitempty"`
	// Account is the threads' time by role and state (JFR and dumps), and
	// Mechanisms the catalogue's matches ranked, the verdict's first.
	Account    []AccountRow   `json:"account,omitempty"`
	Mechanisms []MechanismRow `json:"mechanisms,omitempty"`
	Load       *LoadView      `json:"load,omitempty"`
	// LoadDetail is the load test page's sections (over time, per label,
	// errors and codes, the latency distribution, the send lag) when the
	// run folder kept the load's detail; nil otherwise. Drawn, not
	// serialised: report.json has the summary (Load).
	LoadDetail *LoadPage `json:"-"`
	// CPU is per tick, per CPU: the stacked us/sy/hi/si/wa/st shares.
	CPU []CPUTick `json:"cpu,omitempty"`
	// Softirq is per tick, per CPU: softirqs per second (all types) and NET_RX.
	Softirq []SoftirqTick `json:"softirq,omitempty"`
	// ThreadStates is per thread dump: the count of threads per state.
	ThreadStates []ThreadStateSample `json:"thread_states,omitempty"`
	Locks        []LockRow           `json:"locks,omitempty"`
	GC           *GCView             `json:"gc,omitempty"`
	// Flame is the merged stack tree of the hot stacks (JFR execution
	// samples or RUNNABLE threads of the dumps); nil when there are none.
	Flame *FlameNode `json:"flame,omitempty"`
	// FlameSource says where the stacks came from ("12 thread dumps", "JFR").
	FlameSource string `json:"flame_source,omitempty"`
	// Flames are the recording's other profiles besides Flame's CPU one,
	// each with its own unit: allocation (bytes), lock (nanoseconds waited),
	// wall clock (samples) when recorded; the page switches between them.
	Flames []FlameKind `json:"flames,omitempty"`
	// Check is the host audit taken at the start (failures only).
	Check []finding.Finding `json:"check,omitempty"`
	// Facts are host facts to show as a table (label, value).
	Facts [][2]string `json:"facts,omitempty"`
	// Hosts are the hosts of a multi-host run (hosts.go; nil: one host).
	Hosts *HostsView `json:"hosts,omitempty"`

	// Brief is the run's summary alone (NewRunBrief: `record`, `analyze
	// RUN_DIR`): its header and findings, JSON as run-report/v1.
	Brief bool `json:"-"`
	// Folder is where the page's report.html is (the run folder, or the
	// folder of a multi-host run), said at the end of the text ("": no
	// page was written, as by analyze).
	Folder string `json:"-"`
}

// LoadView is the load generator's result (ours or an imported JMeter JTL).
type LoadView struct {
	Source   string  `json:"source"` // "tuneloop load" or the JTL path
	Model    string  `json:"model"`  // "closed, 60 users" / "open, 5000/s"
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	TPS      float64 `json:"tps"`
	MeanMS   float64 `json:"mean_ms"`
	P50MS    float64 `json:"p50_ms"`
	P90MS    float64 `json:"p90_ms"`
	P99MS    float64 `json:"p99_ms"`
	MaxMS    float64 `json:"max_ms"`
	// RampS: the load itself still ramped up over the series' first
	// seconds (loadgen.Summary.RampS).
	RampS float64 `json:"ramp_s,omitempty"`
	// ClientCPU is the load generator's CPU on this host (tuneloop's own
	// process, or JMeter's here), in % of the cores (loadgen.Summary).
	ClientCPU float64 `json:"client_cpu_pct,omitempty"`
	// Series is per second.
	Series []LoadPoint `json:"series"`
}

// ModelText says a LoadView.Model ("closed", "open", "closed, 60 users")
// in both languages; anything else (a JTL's name) stays as it is.
func ModelText(model string) finding.Text { return loadgen.ModelText(model) }

// LoadPoint is one second of load.
type LoadPoint struct {
	T      time.Time `json:"t"`
	TPS    float64   `json:"tps"`
	P50MS  float64   `json:"p50_ms"`
	P99MS  float64   `json:"p99_ms"`
	Errors int64     `json:"errors"`
}

// CPUTick is one sampling interval.
type CPUTick struct {
	T      time.Time  `json:"t"`
	PerCPU []CPUShare `json:"per_cpu"`
}

// CPUShare is one CPU's time split in percent (they sum to <= 100; the rest is idle).
type CPUShare struct {
	Us float64 `json:"us"` // user + nice
	Sy float64 `json:"sy"`
	Hi float64 `json:"hi"`
	Si float64 `json:"si"`
	Wa float64 `json:"wa"`
	St float64 `json:"st"`
}

// SoftirqTick is softirqs per second per CPU in one interval.
type SoftirqTick struct {
	T     time.Time `json:"t"`
	All   []float64 `json:"all"`    // per CPU, every type
	NetRx []float64 `json:"net_rx"` // per CPU, NET_RX only
}

// ThreadStateSample is the state distribution of one thread dump.
type ThreadStateSample struct {
	T      time.Time      `json:"t"`
	Counts map[string]int `json:"counts"` // RUNNABLE, BLOCKED, WAITING, TIMED_WAITING, ...
	// BlockedWaitingPct is the share of working threads blocked or waiting,
	// idle pool threads left out (the seeds' figure); nil in reports made
	// before it was recorded.
	BlockedWaitingPct *float64 `json:"blocked_waiting_pct,omitempty"`
}

// LockRow is one contended lock, most waiters first.
type LockRow struct {
	Lock       string `json:"lock"`  // <0x000000069ebe53b8>
	Class      string `json:"class"` // ch.qos.logback.core.OutputStreamAppender...
	Kind       string `json:"kind"`  // monitor / juc
	Owner      string `json:"owner"` // thread name, "" when none
	OwnerState string `json:"owner_state"`
	OwnerFrame string `json:"owner_frame"` // what the owner runs
	Waiters    int    `json:"waiters"`
	Dumps      int    `json:"dumps"` // in how many dumps it was contended
	// Source is where the row comes from when the run has a JFR lock
	// profile: "dumps", "jfr" or "dumps+jfr" (joined by lock class); ""
	// when there is no recording. Wait is the recording's time waited on
	// the class (nil: not in it).
	Source string    `json:"source,omitempty"`
	Wait   *LockWait `json:"wait,omitempty"`
}

// GCView is the GC log's KPIs and pauses over time.
type GCView struct {
	Collector     string  `json:"collector"`
	ThroughputPct float64 `json:"throughput_pct"` // -1: not measurable (no timestamps)
	Pauses        int     `json:"pauses"`
	PauseP50MS    float64 `json:"pause_p50_ms"`
	PauseP99MS    float64 `json:"pause_p99_ms"`
	PauseMaxMS    float64 `json:"pause_max_ms"`
	FullGCs       int     `json:"full_gcs"`
	// Timeline: each pause at its time since JVM start.
	Timeline []GCPause `json:"timeline,omitempty"`
	// Verdict is e.g. "GC is not the bottleneck (throughput 99.2%)".
	Verdict finding.Text `json:"verdict"`
}

// GCPause is one stop-the-world pause.
type GCPause struct {
	UptimeS float64 `json:"uptime_s"`
	MS      float64 `json:"ms"`
	Kind    string  `json:"kind"` // young, mixed, full, remark, ...
}

// FlameNode is one frame of a merged stack tree (stacks.Node: the
// verdict's layers and the page share one tree).
type FlameNode = stacks.Node
