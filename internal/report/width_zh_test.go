package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// displayCol is the display column at which sub starts in line, -1 if absent.
func displayCol(line, sub string) int {
	i := strings.Index(line, sub)
	if i < 0 {
		return -1
	}
	return finding.DisplayWidth(line[:i])
}

// Every text table of this package in Chinese: the column after a padded
// cell starts at the same display column on every line, whatever the
// width of the Chinese before it.
func TestTextTablesAlignedInChinese(t *testing.T) {
	t.Run("rule list", func(t *testing.T) {
		rs := []RuleInfo{
			{ID: "cpu.governor", Category: "cpu", Severity: finding.Warning, Checks: finding.T("a", "检查A")},
			{ID: "net.somaxconn", Category: "cpu", Severity: finding.Critical, Checks: finding.T("b", "检查B")},
			{ID: "mem.thp", Category: "cpu", Severity: finding.Info, Checks: finding.T("c", "检查C")},
		}
		var b bytes.Buffer
		writeRuleListText(&b, rs, finding.ZH)
		for _, c := range []string{"检查A", "检查B", "检查C"} {
			for _, l := range strings.Split(b.String(), "\n") {
				if strings.Contains(l, c) && displayCol(l, c) != 2+36+1+8+1 {
					t.Errorf("%q: what it checks at column %d, want 48", l, displayCol(l, c))
				}
			}
		}
	})
	t.Run("check: could not check", func(t *testing.T) {
		fs := []finding.Finding{
			{ID: "disk.scheduler", Subject: "数据盘", Status: finding.Unavailable, Reason: finding.T("x", "原因一")},
			{ID: "disk.scheduler", Subject: "sda", Status: finding.Unavailable, Reason: finding.T("y", "原因二")},
		}
		c := NewCheck("test", time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), "", Host{}, fs)
		var b bytes.Buffer
		if err := writeCheckText(&b, c, TextOptions{Lang: finding.ZH}); err != nil {
			t.Fatal(err)
		}
		a, z := -1, -1
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.Contains(l, "原因一") {
				a = displayCol(l, "原因一")
			}
			if strings.Contains(l, "原因二") {
				z = displayCol(l, "原因二")
			}
		}
		if a != 2+34+1 || z != a {
			t.Errorf("reasons at columns %d and %d, want 37:\n%s", a, z, b.String())
		}
	})
	t.Run("experiment", func(t *testing.T) {
		e := &Experiment{Metric: "tps", Higher: 1, Arms: []ExperimentArm{
			{ID: "baseline", Label: "基线", Trials: 3, Status: "baseline"},
			{ID: "a1", Label: "G1 换成 ZGC，堆 4g", Trials: 3, Status: "measured"},
			{ID: "a2-long-id", Label: "x", Trials: 12, Status: "dropped"},
		}}
		var b bytes.Buffer
		if err := writeExperimentText(&b, e, finding.ZH); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(b.String(), "\n")
		h := indexOf(b.String(), "设置")
		if h < 0 || h+3 >= len(lines) {
			t.Fatalf("no table:\n%s", b.String())
		}
		// The trials column: right after the settings, the same display column.
		col := displayCol(lines[h], "试验")
		for i, want := range []string{" 3 ", " 3 ", " 12 "} {
			l := lines[h+1+i]
			lbl := []string{"基线", "G1 换成 ZGC，堆 4g", "x"}[i]
			rest := l[strings.Index(l, lbl)+len(lbl):]
			at := finding.DisplayWidth(l[:strings.Index(l, lbl)+len(lbl)]) + len(rest) - len(strings.TrimLeft(rest, " "))
			if at != col || !strings.HasPrefix(" "+strings.TrimLeft(rest, " "), want) {
				t.Errorf("trials of %q at column %d, header at %d:\n%s", lbl, at, col, b.String())
			}
		}
	})
	t.Run("profile", func(t *testing.T) {
		p := &FlamePage{Lang: finding.ZH, Kind: "cpu", Unit: "samples", Target: "pid 1", Total: 100, Events: 100,
			BySelf: []stacks.FrameValue{
				{Frame: "com.example.订单服务.处理", Self: 60, Total: 60},
				{Frame: "com.example.Other.run", Self: 40, Total: 40},
			},
			Files: map[string]string{"collapsed": "/tmp/a.txt", "pprof": "/tmp/b.pb.gz", "火焰图": "/tmp/c.html"},
		}
		var b bytes.Buffer
		if err := WriteFlameText(&b, p, 10); err != nil {
			t.Fatal(err)
		}
		files := 0
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.Contains(l, "/tmp/") {
				files++
				if displayCol(l, "/tmp/") != 2+10+1 {
					t.Errorf("file at column %d, want 13: %q", displayCol(l, "/tmp/"), l)
				}
			}
			if strings.Contains(l, "com.example.") && displayCol(l, "com.example.") != displayCol(strings.Split(b.String(), "\n")[indexOf(b.String(), "com.example.")], "com.example.") {
				t.Errorf("frame column differs: %q", l)
			}
		}
		if files != 3 {
			t.Errorf("%d files listed:\n%s", files, b.String())
		}
	})
}

// indexOf is the index of the first line holding sub.
func indexOf(s, sub string) int {
	for i, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return i
		}
	}
	return -1
}
