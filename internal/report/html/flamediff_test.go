package html

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// diffPage is the demo's before/after as a differential flame graph: the
// fix made the request path stop writing logs under the appender lock,
// the time moved to the JSON encoder, and a hostile frame name came from
// the target.
func diffPage(l finding.Lang, perRequest bool) *report.FlameDiffPage {
	mk := func(samples ...stacks.Sample) *stacks.Profile {
		p := &stacks.Profile{Kind: stacks.CPU, Unit: "samples"}
		for _, s := range samples {
			p.Samples = append(p.Samples, s)
			p.Total += s.Value
		}
		return p
	}
	s := func(v int64, st ...string) stacks.Sample { return stacks.Sample{Stack: st, Value: v} }
	before := mk(s(600, "java.lang.Thread.run", "zoo.SyncLogging.handle", "ch.qos.logback.core.OutputStreamAppender.subAppend"),
		s(300, "java.lang.Thread.run", "zoo.SyncLogging.handle", "com.fasterxml.jackson.databind.ObjectMapper.writeValueAsString"),
		s(100, "java.lang.Thread.run", "zoo.SyncLogging.handle", "evil.<script>alert(1)</script>\x1b[31m"))
	after := mk(s(100, "java.lang.Thread.run", "zoo.SyncLogging.handle", "ch.qos.logback.classic.AsyncAppender.append"),
		s(900, "java.lang.Thread.run", "zoo.SyncLogging.handle", "com.fasterxml.jackson.databind.ObjectMapper.writeValueAsString"),
		s(100, "java.lang.Thread.run", "zoo.SyncLogging.handle", "evil.<script>alert(1)</script>\x1b[31m"))
	var br, ar int64
	if perRequest {
		br, ar = 10000, 30000
	}
	d, err := stacks.NewDiff(before, after, br, ar, 10)
	if err != nil {
		panic(err)
	}
	return report.NewFlameDiffPage(d, report.FlameDiffSide{Name: "runs/before"}, report.FlameDiffSide{Name: "runs/after"}, nil, l)
}

func TestWriteFlameDiffGolden(t *testing.T) {
	for name, p := range map[string]*report.FlameDiffPage{
		"flamediff-en":          diffPage(finding.EN, true),
		"flamediff-zh":          diffPage(finding.ZH, true),
		"flamediff-pertotal-en": diffPage(finding.EN, false),
	} {
		var b bytes.Buffer
		if err := WriteFlameDiff(&b, p); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		checkSelfContained(t, name, got)
		checkGolden(t, name, got)
		if strings.Contains(got, "<script>alert") || strings.Contains(got, "\x1b") {
			t.Errorf("%s: target text reached the page as markup", name)
		}
		// What a reader checks: the appender that went away is listed as
		// shrunk and gone, the encoder as grown, each with its numbers.
		if !strings.Contains(got, `id="flame"`) || !strings.Contains(got, "OutputStreamAppender.subAppend") || !strings.Contains(got, "AsyncAppender.append") {
			t.Errorf("%s: the flame graph or a changed frame is missing", name)
		}
	}
	var b bytes.Buffer
	WriteFlameDiff(&b, diffPage(finding.EN, true))
	got := b.String()
	// per request: subAppend 600/10000 = 0.06 -> gone; the encoder 300/10000 = 0.03 -> 900/30000 = 0.03: unchanged.
	for _, want := range []string{"0.06 samples/req", "-0.06 samples/req", ">gone<", ">new<", "per request", "10,000 req", "30,000 req"} {
		if !strings.Contains(got, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(got, "ObjectMapper.writeValueAsString</code>") {
		t.Error("the encoder is listed as changed, though per request it is not")
	}
	b.Reset()
	WriteFlameDiff(&b, diffPage(finding.ZH, true))
	if !strings.Contains(b.String(), "差分火焰图") || !strings.Contains(b.String(), "增长最多的帧") {
		t.Error("zh page lacks its words")
	}
	b.Reset()
	WriteFlameDiff(&b, diffPage(finding.EN, false))
	if !strings.Contains(b.String(), "per total") || !strings.Contains(b.String(), "&#43;51.82 pt") {
		t.Errorf("per-total page lacks its normalisation or the encoder's share growth (30%% -> 81.82%%)")
	}
}

func TestDiffColor(t *testing.T) {
	if c := diffColor(10, 10, false); c != "#f03e3e" {
		t.Errorf("biggest growth %s, want deep red", c)
	}
	if c := diffColor(-10, 10, false); c != "#3e3ef0" {
		t.Errorf("biggest fall %s, want deep blue", c)
	}
	if c := diffColor(0.1, 10, false); c != "#e8e8e8" {
		t.Errorf("a 1%% change %s, want neutral", c)
	}
	if !deepColor(diffColor(10, 10, false)) || deepColor(diffColor(0.1, 10, false)) || deepColor(diffColor(2, 10, false)) {
		t.Error("white text where the colour is pale, or dark text on the deepest")
	}
}
