package html

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
)

// probeFixture is a probe of a 4-CPU host: two SMT pairs, the far pairs
// slower, one figure failed, an fsync distribution; dir is where the disk
// part ran (a hostile name in one test).
func probeFixture(dir string) *probe.Result {
	t0 := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	nan := math.NaN()
	fig := func(part, id, unit string, higher bool, name finding.Text, rounds ...float64) probe.Figure {
		f := probe.Figure{ID: id, Part: part, Unit: unit, Higher: higher, Name: name, Rounds: rounds, OthersBusyPct: 3.5}
		f.Median, f.Lo, f.Hi, f.Coverage, f.OK = rounds[len(rounds)/2], rounds[0], rounds[len(rounds)-1], 0.984, true
		return f
	}
	fs := fig(probe.PartDisk, "disk.fsync", "us", false, finding.T("fsync latency, median", "fsync 延迟中位数"), 120, 125, 130, 131, 140, 150, 170)
	fs.Dist = []probe.Bucket{{LeUS: 128, Count: 40}, {LeUS: 256, Count: 300}, {LeUS: 512, Count: 12}, {LeUS: 1024, Count: 1}}
	failed := probe.Figure{ID: "net.udp_bw.1", Part: probe.PartNet, Unit: "MB/s", Higher: true, Name: finding.T("UDP bandwidth 1 B", "UDP 带宽 1 B"),
		Median: nan, Lo: nan, Hi: nan, OthersBusyPct: -1, Err: "connection refused"}
	return &probe.Result{Schema: probe.Schema, Tool: "tuneloop v0.9.0-test", Start: t0, End: t0.Add(41 * time.Second), Rounds: 7,
		Parts: []string{probe.PartNet, probe.PartCPU, probe.PartDisk}, Peer: probe.PeerOwnProcess, Dir: dir, DiskFS: "ext4",
		Host: probe.Host{Name: "app1", Kernel: "5.10.0-182.0.0.95.oe2203sp3.aarch64", Arch: "arm64", CPUModel: "Kunpeng 920", CPUs: 4, Nodes: 1,
			Clocksource: "arch_sys_counter", THP: "madvise", Mitigations: map[string]string{"spectre_v2": "Mitigation: CSV2, BHB", "meltdown": "Not affected"}},
		Figures: []probe.Figure{
			fig(probe.PartNet, "net.tcp_lat.1", "us", false, finding.T("TCP latency 1 B (half a round trip)", "TCP 延迟 1 B（往返时间的一半）"), 10.1, 10.4, 10.9, 11.0, 11.2, 12.5, 30.2),
			failed,
			fig(probe.PartCPU, "cpu.syscall", "ns", false, finding.T("system call (getppid)", "系统调用（getppid）"), 95, 96, 97, 98, 99, 101, 104),
			fs},
		Matrix: &probe.Matrix{CPUs: []int{0, 1, 2, 3}, Rounds: 7, NS: [][]float64{
			{nan, 18, 95, 97}, {18, nan, 96, 94}, {95, 96, nan, 19}, {97, 94, 19, nan}}},
		PerCPU: []probe.CPUValue{{CPU: 0, Value: 1.9}, {CPU: 1, Value: 1.1}, {CPU: 2, Value: 1.9}, {CPU: 3, Value: 1.2}},
		Notes:  []finding.Text{finding.T("memory: one NUMA node here, so local only", "内存：本机只有一个 NUMA 节点，只测本地")}}
}

func renderProbe(t *testing.T, r *probe.Result, l finding.Lang) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteProbe(&b, report.NewProbePage(r, l)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestProbeGolden(t *testing.T) {
	for name, l := range map[string]finding.Lang{"probe-4cpu-en": finding.EN, "probe-4cpu-zh": finding.ZH} {
		t.Run(name, func(t *testing.T) {
			got := renderProbe(t, probeFixture("/data"), l)
			checkSelfContained(t, name, got)
			checkGolden(t, name, got)
			// The heat map: 12 measured cells, 4 blank diagonal cells.
			if n := strings.Count(got, "<title>cpu"); n != 12 {
				t.Errorf("%d matrix cells with a value, want 12", n)
			}
		})
	}
}

func TestProbeHostileDir(t *testing.T) {
	got := renderProbe(t, probeFixture("/data/<script>alert(1)</script>\x1b[2J"), finding.EN)
	checkSelfContained(t, "hostile", got)
	if strings.Contains(got, "<script>alert") || strings.Contains(got, "\x1b") {
		t.Error("a hostile folder name reached the page unescaped")
	}
}
