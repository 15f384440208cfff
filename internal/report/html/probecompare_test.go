package html

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// probeCompareFixture is two probes on two captured host trees (a VM and
// a Kunpeng 920): on B the system call is a third slower and TCP latency
// two fifths lower, everything else the same rounds.
func probeCompareFixture(t *testing.T) *probe.Comparison {
	t.Helper()
	facts := func(name string) *sysinfo.Facts {
		return sysinfo.Collect(hostfs.Under("../../../testdata/hosts/"+name), sysinfo.Options{NoEthtool: true})
	}
	a, b := probeFixture("/data"), probeFixture("/data")
	a.Facts, b.Facts = facts("build-vm-amd64"), facts("kunpeng920-2s4n")
	b.Host.Name, b.Host.THP = "app2", "always"
	scale := func(f *probe.Figure, k float64) {
		f.Rounds = append([]float64(nil), f.Rounds...)
		for i := range f.Rounds {
			f.Rounds[i] *= k
		}
		f.Median, f.Lo, f.Hi = f.Median*k, f.Lo*k, f.Hi*k
	}
	scale(b.Figure("cpu.syscall"), 1.35)
	scale(b.Figure("net.tcp_lat.1"), 0.6)
	return probe.Compare(a, b, "probes/<vm>", "probes/kunpeng")
}

func renderProbeCompare(t *testing.T, c *probe.Comparison, l finding.Lang) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteProbeCompare(&b, report.NewProbeComparePage(c, "tuneloop v0.9.0-test", l)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestProbeCompareGolden: the page of two probes says per figure both
// sides, the change with its interval, significant or not, and the host
// settings and check findings that differ; the label from the command
// line is escaped; the page reaches nothing outside itself.
func TestProbeCompareGolden(t *testing.T) {
	c := probeCompareFixture(t)
	verdicts := map[string]string{}
	for _, r := range c.Rows {
		verdicts[r.ID] = r.Verdict
	}
	if verdicts["cpu.syscall"] != probe.Worse || verdicts["net.tcp_lat.1"] != probe.Better || verdicts["disk.fsync"] != probe.Same {
		t.Fatalf("fixture verdicts: %v", verdicts)
	}
	if len(c.Differences) == 0 || len(c.Checks) == 0 {
		t.Fatalf("two hosts, no setting or check finding differs: %+v %+v", c.Differences, c.Checks)
	}
	for name, l := range map[string]finding.Lang{"probe-compare-en": finding.EN, "probe-compare-zh": finding.ZH} {
		t.Run(name, func(t *testing.T) {
			got := renderProbeCompare(t, c, l)
			checkSelfContained(t, name, got)
			checkGolden(t, name, got)
			row := func(id string) string {
				m := regexp.MustCompile(`<tr><td class="txt" title="` + regexp.QuoteMeta(id) + `">.*?</tr>`).FindString(got)
				if m == "" {
					t.Fatalf("no row for %s", id)
				}
				return m
			}
			worse, better := finding.T("B WORSE", "B 更差").In(l), finding.T("B better", "B 更好").In(l)
			if r := row("cpu.syscall"); !strings.Contains(r, `class="badge sev-critical">`+worse) || !regexp.MustCompile(`\+3[45]\.\d%`).MatchString(r) ||
				!strings.Contains(r, `aria-label="change"`) || !strings.Contains(r, `aria-label="rounds A and B"`) {
				t.Errorf("the slower system call is not shown worse with its change:\n%s", r)
			}
			if r := row("net.tcp_lat.1"); !strings.Contains(r, `<span class="ok">`+better) || !strings.Contains(r, "-40.") {
				t.Errorf("the lower latency is not shown better:\n%s", r)
			}
			if r := row("disk.fsync"); strings.Contains(r, "badge") || !strings.Contains(r, finding.T("no significant difference", "无显著差异").In(l)) {
				t.Errorf("an unchanged figure is not said the same:\n%s", r)
			}
			if r := row("net.udp_bw.1"); strings.Contains(r, `aria-label="change"`) {
				t.Errorf("a figure measured on neither side has no change to draw:\n%s", r)
			}
			for _, x := range c.Checks {
				if !strings.Contains(got, "<code>"+x.ID+"</code>") {
					t.Errorf("check finding %s (side %s) missing", x.ID, x.Side)
				}
			}
			for _, d := range c.Differences {
				if !strings.Contains(got, d.What.In(l)) {
					t.Errorf("setting %q missing", d.What.In(l))
				}
			}
			if strings.Contains(got, "probes/<vm>") || !strings.Contains(got, "probes/&lt;vm&gt;") {
				t.Error("the side's label is not escaped")
			}
		})
	}
}
