package cli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// BenchmarkRecordCost measures what `record` costs at a 1 s interval with a
// target of 500 threads (the budget: at most 1% of one core and
// 50 MB RSS), and, when sysstat is installed, what `pidstat -t` costs
// sampling the same process at the same interval. It records once whatever
// b.N is; run it with
//
//	go test -run '^$' -bench RecordCost -benchtime 1x ./internal/cli
//
// TUNELOOP_COST_SECONDS sets the length (default 10).
func BenchmarkRecordCost(b *testing.B) {
	secs := 10
	if v, err := strconv.Atoi(os.Getenv("TUNELOOP_COST_SECONDS")); err == nil && v >= 2 {
		secs = v
	}
	c := startTestChild(b, "busy=1,idle=499,name=worker", 2)
	var pidstat *exec.Cmd
	if p, err := exec.LookPath("pidstat"); err == nil {
		pidstat = exec.Command(p, "-t", "-u", "-w", "-p", strconv.Itoa(c.PID), "1", strconv.Itoa(secs))
		pidstat.Stdout = io.Discard
		if err := pidstat.Start(); err != nil {
			b.Logf("pidstat: %v", err)
			pidstat = nil
		}
	} else {
		b.Log("pidstat not installed (apt-get install sysstat): no comparison")
	}
	dir := filepath.Join(b.TempDir(), "run")
	env := &Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	b.ResetTimer()
	start := time.Now()
	err := RunRecord(context.Background(), env, &RecordOptions{Duration: time.Duration(secs) * time.Second, Interval: time.Second,
		PID: c.PID, Out: dir, NoCatalog: true, Output: "json"})
	wall := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	f, err := runfolder.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	cost := f.Manifest.Cost
	st, _ := os.Stat(filepath.Join(dir, runfolder.SamplesFile))
	b.ReportMetric(cost.CPUPctOfCore, "cpu%/core")
	b.ReportMetric(float64(cost.MaxRSSKB)/1024, "maxrss-MiB")
	b.ReportMetric(float64(st.Size())/float64(f.Manifest.Ticks)/1024, "KiB/tick")
	b.ReportMetric(float64(cost.AvgTickUS), "us/tick")
	b.Logf("tuneloop record: %d threads, %d ticks in %s: %.2f%% of one core, %.1f MiB max RSS (whole test process), %.1f KiB/tick on disk, %d µs per tick",
		500, f.Manifest.Ticks, wall.Round(time.Millisecond), cost.CPUPctOfCore, float64(cost.MaxRSSKB)/1024,
		float64(st.Size())/float64(f.Manifest.Ticks)/1024, cost.AvgTickUS)
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(st), "\n") {
			if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "VmHWM:") {
				b.Logf("recorder process %s", strings.Join(strings.Fields(l), " "))
			}
		}
	}
	if pidstat != nil {
		if err := pidstat.Wait(); err != nil {
			b.Logf("pidstat: %v", err)
		}
		ps := pidstat.ProcessState
		cpu := ps.UserTime() + ps.SystemTime()
		var rss int64
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss
		}
		pct := 100 * cpu.Seconds() / float64(secs)
		b.ReportMetric(pct, "pidstat-cpu%/core")
		b.Logf("pidstat -t -u -w 1 %d: %.2f%% of one core, %.1f MiB max RSS", secs, pct, float64(rss)/1024)
	}
}
