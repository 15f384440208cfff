package cli

import (
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
)

// RunOptions are the flags of `tuneloop run`.
type RunOptions struct {
	Target       string
	Users        int
	Rate         float64
	Duration     time.Duration
	WarmUp       time.Duration
	Interval     time.Duration
	DumpEvery    time.Duration
	Start        string
	StartTimeout time.Duration
	StopTimeout  time.Duration
	KeepService  bool
	PID          int
	JVM          string
	Scenario     string
	JMX          string
	JProps       []string
	JMXSkip      bool
	JTLWatch     string
	Engine       engineOptions // --engine, --jmeter, --jmeter-remote
	Out          string
	Output       string // text, json or markdown on stdout
	Lang         string
	Profile      string
	FailOn       string
	Catalog      string
	NoCatalog    bool
	NoGCLog      bool
	NoJFR        bool
	Quiet        bool
	Argv         []string
	Repeat       int // --repeat N: N runs into Out/run-1..N
	Prom         promOptions
	Remote       hostOptions // --host, --hosts: load here, record there
	// Probe is a probe folder of this host (--probe); "" looks for the
	// newest of this host under ProbeRoot (default probe.DefaultRoot).
	Probe, ProbeRoot string

	// --start-b / --target-b: a second variant, run interleaved with the
	// first (a1 b1 a2 b2 ...) into Out/a and Out/b, then compared.
	StartB, TargetB string
	FailOnRegPct    float64 // the A/B comparison's gate (compare --fail-on-regression)
}

// check refuses the combinations of run's flags that cannot run (exit 2).
func (o *RunOptions) check() error {
	if (o.StartB != "" || o.TargetB != "") && o.Repeat < 2 {
		return usageErr(finding.T("--start-b/--target-b need --repeat N with N >= 2 (pairs of runs; 6 or more for a verdict at 95%%, 8 for --fail-on-regression)", "--start-b/--target-b 需要 --repeat N 且 N >= 2（成对运行；95%% 水平的结论至少需要 6 对，--fail-on-regression 至少需要 8 对）"))
	}
	switch {
	case o.Target == "" && o.JTLWatch == "":
		return usageErr(finding.T("--target URL is required (or --jtl-watch for an external load)", "需要 --target URL（外部压测时用 --jtl-watch）"))
	case o.Users > 0 && o.Rate > 0:
		return usageErr(finding.T("-c/--users and --rate are exclusive", "-c/--users 与 --rate 不能同时使用"))
	case o.FailOnRegPct != 0 && o.StartB == "" && o.TargetB == "":
		return usageErr(finding.T("--fail-on-regression gates an A/B run: give --start-b or --target-b (or gate two run folders with tuneloop compare)",
			"--fail-on-regression 用于 A/B 运行：请给出 --start-b 或 --target-b（或用 tuneloop compare 对两个运行目录做门禁）"))
	case o.Duration < 2*o.Interval:
		return usageErr(finding.T("--duration %s: too short for --interval %s", "--duration %s：对 --interval %s 来说太短"), o.Duration, o.Interval)
	case o.PID != 0 && (o.JVM != "" || o.Start != "" || o.StartB != ""):
		return usageErr(finding.T("--pid excludes --jvm and --start", "--pid 不能与 --jvm、--start 同时使用"))
	}
	if o.Probe != "" {
		if o.Remote.any() {
			return usageErr(finding.T("--probe is for a run on this host: not with --host/--hosts", "--probe 用于本机上的运行：不能与 --host/--hosts 同时使用"))
		}
		if _, _, err := probe.Read(o.Probe); err != nil {
			return usageErr(finding.T("--probe: %v", "--probe：%v"), err)
		}
	}
	return nil
}

// fillDefaults sets what was left to run: 50 users unless --rate, a warm-up
// of a tenth of the load (at most 30 s); usersGiven says -c was given, dumps
// is how many thread dumps to spread over the load (5, or one per
// --dump-every).
func (o *RunOptions) fillDefaults() (usersGiven bool, dumps int) {
	usersGiven = o.Users > 0
	if o.Users == 0 && o.Rate == 0 {
		o.Users = 50
	}
	if o.WarmUp < 0 {
		o.WarmUp = min(o.Duration/10, 30*time.Second)
	}
	dumps = 5
	if o.DumpEvery > 0 {
		dumps = max(1, int(o.Duration/o.DumpEvery))
	}
	return usersGiven, dumps
}
