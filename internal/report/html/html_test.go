package html

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

func TestWriteRunStructure(t *testing.T) {
	for _, tc := range []struct {
		name string
		ncpu int
		lang finding.Lang
	}{{"2cpu-en", 2, finding.EN}, {"128cpu-en", 128, finding.EN}, {"2cpu-zh", 2, finding.ZH}} {
		t.Run(tc.name, func(t *testing.T) {
			s := renderHTML(t, htmlFixture(tc.ncpu, tc.lang))
			checkSelfContained(t, tc.name, s)
			last := -1
			for _, id := range sectionIDs {
				i := strings.Index(s, `<section id="`+id+`"`)
				if i < 0 {
					t.Errorf("section %s missing", id)
					continue
				}
				if i < last {
					t.Errorf("section %s out of order", id)
				}
				last = i
			}
			want := []string{"Verdict", "Request threads serialise", "AsyncAppender", "Throughput and latency", "CPU per core", "NET_RX", "BLOCKED", "OutputStreamAppender", "G1", "Hot stacks", "Host audit failures", "Host facts", "v0.9.0-test", "2026-11-22 01:02:05 UTC"}
			if tc.lang == finding.ZH {
				want = []string{"结论", "请求线程在 logback", "吞吐与延迟", "各 CPU 使用率", "竞争的锁", "垃圾回收", "火焰图", "主机检查未通过项", "主机信息", `lang="zh"`}
			}
			for _, w := range want {
				if !strings.Contains(s, w) {
					t.Errorf("missing %q", w)
				}
			}
			if tc.ncpu > smallMultiples && strings.Count(s, `<image `) != 3 {
				t.Errorf("128 CPUs: no heat strip")
			}
			if tc.ncpu <= smallMultiples && strings.Count(s, `aria-label="CPU `) != tc.ncpu {
				t.Errorf("want %d small multiples, got %d", tc.ncpu, strings.Count(s, `aria-label="CPU `))
			}
			if n := strings.Count(s, `class="fr"`); n == 0 || n > maxFlameNodes {
				t.Errorf("flame frames: %d", n)
			}
			// top 20 locks only
			if n := strings.Count(s, "pool-2-thread-"); n != maxLockRows-1 {
				t.Errorf("lock rows: %d", n)
			}
			t.Logf("%s: %d bytes", tc.name, len(s))
			if len(s) > 1<<20 {
				t.Errorf("page is %d bytes", len(s))
			}
		})
	}
}

func TestWriteRunEmpty(t *testing.T) {
	s := renderHTML(t, &report.RunPage{Lang: finding.EN})
	checkSelfContained(t, "empty", s)
	if !strings.Contains(s, "No bottleneck found") {
		t.Error("no 'no bottleneck' line")
	}
	for _, id := range sectionIDs[1:] {
		if strings.Contains(s, `id="`+id+`"`) {
			t.Errorf("empty page has section %s", id)
		}
	}
	if err := WriteRun(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil page: no error")
	}
}

func TestWriteRunHostile(t *testing.T) {
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		p := htmlFixture(4, l)
		makeHostile(p)
		s := renderHTML(t, p)
		checkSelfContained(t, "hostile", s)
		// no markup, no invalid UTF-8, no terminal control (BEL, ESC, CSI)
		for _, bad := range []string{"<script>alert", "<img src=x", "\xff", "\xfe", `"><script`, "</script><script", "\a", "\x1b", "\u009b"} {
			if strings.Contains(s, bad) {
				i := strings.Index(s, bad)
				t.Errorf("%s: raw %q in output: …%s…", l, bad, s[max(0, i-80):min(len(s), i+80)])
			}
		}
		// the data for the script parses back to the cleaned title
		const open = `<script type="application/json" id="tl-data">`
		i := strings.Index(s, open)
		j := strings.Index(s[i:], "</script>")
		if i < 0 || j < 0 {
			t.Fatal("no JSON data block")
		}
		var data map[string]any
		if err := json.Unmarshal([]byte(s[i+len(open):i+j]), &data); err != nil {
			t.Fatalf("JSON data: %v", err)
		}
		if title, _ := data["title"].(string); !strings.Contains(title, "<script>alert(1)</script>") || strings.Contains(title, "\n") {
			t.Errorf("title in JSON: %q", title)
		}
		// the controls are shown as \xNN, in the title, the lock table and the references
		for _, want := range []string{`\x07\x1b[31mred\x1b[0m`, `pool-\x07\x07\x07-thread-`, `/api/\x1b]0;pwned\x07`, `Broken\x1b[2J$<wbr>`} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: %q not shown", l, want)
			}
		}
		// the escaped forms are there: the text is shown, not dropped
		if !strings.Contains(s, "&lt;script&gt;alert(1)&lt;/script&gt;") && !strings.Contains(s, "&#34;&gt;&lt;script&gt;") {
			t.Errorf("%s: escaped hostile text not found", l)
		}
	}
}

func TestHTMLHelpers(t *testing.T) {
	xs := make([]float64, 5000)
	ys := make([]float64, 5000)
	for i := range xs {
		xs[i], ys[i] = float64(i), float64(i%100)
	}
	dx, dy := downsample(xs, ys, maxSeriesPoints, true)
	if len(dx) != maxSeriesPoints || len(dy) != maxSeriesPoints || dy[0] != 7 {
		t.Errorf("downsample: %d %d %v", len(dx), len(dy), dy[:3])
	}
	if ts, top := niceTicks(1234, 4); top != 1500 || len(ts) != 4 {
		t.Errorf("niceTicks(1234) = %v %v", ts, top)
	}
	for in, want := range map[float64]string{0: "0", 3.14159: "3.14", 42.25: "42.2", 612: "612", 14200: "14.2k", 2.5e6: "2.5M", math.NaN(): "–"} {
		if got := fmtNum(in); got != want && !math.IsNaN(in) {
			t.Errorf("fmtNum(%v) = %q, want %q", in, got, want)
		}
	}
	if fmtInt(141600) != "141,600" || fmtInt(-1000) != "-1,000" || fmtDur(150) != "2m30s" || fmtDur(7300) != "2h01m" {
		t.Error("fmtInt/fmtDur")
	}
	// a flame tree far bigger than the cap is cut to the biggest frames
	root := &report.FlameNode{Name: "all"}
	for i := 0; i < 5000; i++ {
		root.Add([]string{fmt.Sprint("a", i%50), fmt.Sprint("b", i%500), fmt.Sprint("c", i)}, 1+i%7)
	}
	f := flameSection(root, "", map[string]string{"samples": "samples"})
	if f.Shown != maxFlameNodes || f.Nodes != 1+50+500+5000 {
		t.Errorf("flame: shown %d of %d", f.Shown, f.Nodes)
	}
}

// TestWriteRunDegenerate feeds odd data: NaN, Inf, negative values,
// one tick, ragged per-CPU slices, zero times, a bare flame root.
func TestWriteRunDegenerate(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	nan, inf := math.NaN(), math.Inf(1)
	p := &report.RunPage{Lang: finding.ZH, Run: &report.RunSummary{Incomplete: true, Reason: "SIGKILL", Findings: []finding.Finding{{ID: "x", Status: finding.Fail, Severity: finding.Severity(7)}}},
		Load:         &report.LoadView{TPS: nan, P99MS: inf, Series: []report.LoadPoint{{T: t0, TPS: nan, P99MS: inf}, {T: t0.Add(time.Second), TPS: -5}}},
		CPU:          []report.CPUTick{{T: t0, PerCPU: nil}, {T: t0.Add(time.Second), PerCPU: []report.CPUShare{{Us: nan, Sy: inf}, {Us: -3}}}},
		Softirq:      []report.SoftirqTick{{T: t0, All: []float64{1}, NetRx: []float64{nan, 2, 3}}, {T: t0, All: nil, NetRx: []float64{inf}}},
		ThreadStates: []report.ThreadStateSample{{Counts: map[string]int{"RUNNABLE": -1, "": 2}}, {T: t0, Counts: nil}},
		Locks:        []report.LockRow{{}},
		GC:           &report.GCView{ThroughputPct: nan, Timeline: []report.GCPause{{UptimeS: nan, MS: inf, Kind: ""}}},
		Flame:        &report.FlameNode{Value: 1, Children: []*report.FlameNode{nil, {Name: "", Value: 0}}},
		Facts:        [][2]string{{"", ""}, {"k", "v\nw"}},
	}
	for range 2 {
		s := renderHTML(t, p)
		checkSelfContained(t, "degenerate", s)
		if i := strings.Index(s, "NaN"); i >= 0 {
			t.Errorf("NaN in output: …%s…", s[max(0, i-100):min(len(s), i+50)])
		}
		if want := map[finding.Lang]string{finding.ZH: "不完整", finding.EN: "INCOMPLETE"}[p.Lang]; !strings.Contains(s, want) || !strings.Contains(s, "SIGKILL") {
			t.Errorf("%s: incomplete notice missing", p.Lang)
		}
		p.Lang = finding.EN
		p.CPU = []report.CPUTick{{T: t0, PerCPU: make([]report.CPUShare, 300)}}
	}
}

// The verdict's window is shaded on every time chart, and said above them;
// a window that is the whole run is not (it points at nothing).
func TestVerdictWindowBand(t *testing.T) {
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		p := htmlFixture(2, l)
		t0 := p.Load.Series[0].T
		p.Verdict.Window = &finding.Window{From: t0.Add(20 * time.Second), To: t0.Add(50 * time.Second)}
		s := renderHTML(t, p)
		charts := strings.Count(s, "<svg")
		if n := strings.Count(s, `class="band"`); n < 3 || n > charts {
			t.Errorf("%s: %d bands on %d charts", l, n, charts)
		}
		note := map[finding.Lang]string{finding.EN: "shaded: when the verdict held (01:00:20 – 01:00:50)", finding.ZH: "阴影：结论成立的时段（01:00:20 – 01:00:50）"}[l]
		if !strings.Contains(s, note) {
			t.Errorf("%s: no window note %q", l, note)
		}
		p.Verdict.Window = &finding.Window{From: t0, To: p.Load.Series[len(p.Load.Series)-1].T}
		if s := renderHTML(t, p); strings.Contains(s, `class="band"`) {
			t.Errorf("%s: a whole-run window is shaded", l)
		}
	}
}
