package mechanism

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// Family groups mechanisms by the layer they live in; the verdict's branch
// (a lock queue, GC, the CPUs) says which families can explain it.
type Family string

const (
	Logging   Family = "logging"
	EventLoop Family = "eventloop"
	CPU       Family = "cpu"
	GC        Family = "gc"
	JVM       Family = "jvm"
	Pool      Family = "pool"
	Wait      Family = "wait"
	Lock      Family = "lock"
	IO        Family = "io"
	Host      Family = "host"
)

// Entry is one mechanism of the catalogue, written as data: Rule turns it
// into the one rule shape (finding.Rule) the engine evaluates.
type Entry struct {
	ID     string // "mech.<family>.<name>"
	Family Family
	// Name is the mechanism's name (the finding's title).
	Name finding.Text
	// Mechanism says how it makes the service slow (the finding's why).
	Mechanism finding.Text
	// Tradeoff is what the fix costs (the finding's risk).
	Tradeoff   finding.Text
	Sig        Signature
	Fixes      []Fix
	References []string
	// Generic entries (the hottest application method, an application
	// monitor) name what no specific entry explains: a specific entry
	// matching much of the same time wins.
	Generic bool
}

// Fix is the specific fix for one framework ("" : whatever is in use).
type Fix struct {
	Framework string
	// Do is what to change, said for that framework.
	Do finding.Text
	// Apply and Revert are literal config lines, flags or code, when there are any.
	Apply, Revert string
}

// fixFor is the first fix whose framework the evidence shows, else the
// framework-free one.
func (en *Entry) fixFor(e *Evidence) Fix {
	var def Fix
	for _, f := range en.Fixes {
		if f.Framework == "" {
			if def.Do.IsZero() {
				def = f
			}
			continue
		}
		if e.Has(f.Framework) {
			return f
		}
	}
	if def.Do.IsZero() && len(en.Fixes) > 0 {
		return en.Fixes[0]
	}
	return def
}

// Rule is the entry in the one rule shape: its condition is its signature.
func (en Entry) Rule() finding.Rule[*Evidence] {
	return finding.Rule[*Evidence]{
		ID: en.ID, Category: "mech", Severity: finding.Warning, Title: en.Name,
		Checks: en.Sig.describe(), Why: en.Mechanism, Risk: en.Tradeoff,
		Workload:   finding.T("Java services under load", "承载负载的 Java 服务"),
		Reads:      en.reads(),
		References: en.References,
		Eval:       en.eval,
	}
}

func (en *Entry) reads() []string {
	var r []string
	if en.Sig.sliceCriteria() {
		r = append(r, "jfr.samples+events", "thread-dumps")
	}
	for _, n := range en.Sig.Needs {
		r = append(r, n.Fact)
	}
	if en.Sig.Score != "" {
		r = append(r, en.Sig.Score)
	}
	return r
}

// eval measures the signature and, when it holds, says the mechanism with
// the code line, the share of the time and what it rests on.
func (en Entry) eval(e *Evidence) []finding.Outcome {
	m, ok := en.Sig.Measure(e)
	if !ok {
		return nil
	}
	if e.matches == nil {
		e.matches = map[string]Match{}
	}
	e.matches[en.ID] = m
	o := finding.Outcome{Status: finding.Fail, Confidence: support(m)}
	if m.Share >= 0.5 {
		o = o.WithSeverity(finding.Critical)
	}
	o.Evidence = append(o.Evidence, finding.Evidence{Key: "mechanism", Value: en.ID})
	if m.HasCode {
		o.Evidence = append(o.Evidence, finding.Evidence{Key: "code", Value: m.Code.String(), Source: string(m.Source)})
	}
	if m.Of > 0 {
		o.Evidence = append(o.Evidence, finding.Evidence{Key: "share", Value: fmt.Sprintf("%.0f%%", 100*m.Share), Source: string(m.Source)},
			finding.Evidence{Key: "support", Value: fmt.Sprintf("%d of %d", m.Events, m.Of), Source: string(m.Source)})
	} else if m.Facts != "" {
		o.Evidence = append(o.Evidence, finding.Evidence{Key: "facts", Value: m.Facts})
	}
	if m.Lock != "" {
		o.Evidence = append(o.Evidence, finding.Evidence{Key: "lock", Value: m.Lock})
	}
	if m.Holder.Method != "" {
		o.Evidence = append(o.Evidence, finding.Evidence{Key: "holder", Value: m.Holder.String()})
	}
	if m.Peer != "" {
		o.Evidence = append(o.Evidence, finding.Evidence{Key: "peer", Value: m.Peer})
	}
	if m.Holding > 0 {
		o.Evidence = append(o.Evidence, finding.Evidence{Key: "holders_code", Value: m.HoldingCode.String(), Source: string(m.Source)},
			finding.Evidence{Key: "holders_state", Value: string(m.HoldingState)})
	}
	o.Observed = observed(&en, m)
	fx := en.fixFor(e)
	if fx.Framework != "" {
		o.Evidence = append(o.Evidence, finding.Evidence{Key: "fix_for", Value: fx.Framework})
	}
	o.Recommended = fx.Do
	o.Fix = finding.Fix{Apply: fx.Apply, Revert: fx.Revert}
	return []finding.Outcome{o}
}

// support is the confidence a match's evidence gives: few slices, little.
func support(m Match) float64 {
	switch {
	case m.Of == 0: // a facts-only signature: its facts are direct readings
		return 0.9
	case m.Source == FromDumps:
		return min(0.95, 0.4+0.05*float64(m.Events))
	}
	return min(0.95, 0.4+0.005*float64(m.Events))
}

func unitOf(src Source) (string, string) {
	if src == FromDumps {
		return "thread snapshots in the dumps", "个线程快照（线程转储）"
	}
	return "JFR samples and events", "个 JFR 采样与事件"
}

func observed(en *Entry, m Match) finding.Text {
	if m.Of == 0 {
		t := finding.Tf(finding.T("Read from %s", "依据 %s"), m.Facts)
		if m.HasCode {
			t.EN = fmt.Sprintf("%s; the application allocates most at %s (%.0f%% of %s sampled by JFR)", t.EN, m.Code.String(), 100*m.CodeShare, units.FormatBytesScaled(m.AllocBytes, 1))
			t.ZH = fmt.Sprintf("%s；应用分配最多的位置是 %s（占 JFR 采样的 %s 中的 %.0f%%）", t.ZH, m.Code.String(), units.FormatBytesScaled(m.AllocBytes, 1), 100*m.CodeShare)
		}
		return finding.Tf(finding.T("%s.", "%s。"), t)
	}
	u, uz := unitOf(m.Source)
	t := finding.Tf(finding.T("%.0f%% of the request threads' time (%d of %d %s)", "请求线程 %.0f%% 的时间（%d / %d %s）"),
		100*m.Share, m.Events, m.Of, finding.T(u, uz))
	if m.OfCPU {
		t = finding.Tf(finding.T("%.0f%% of the request threads' CPU time on saturated CPUs (%d of %d %s)", "CPU 饱和时请求线程 %.0f%% 的 CPU 时间（%d / %d %s）"),
			100*m.Share, m.Events, m.Of, finding.T(u, uz))
	}
	if len(en.Sig.Frames) > 0 && m.Site.Method != "" && !strings.EqualFold(m.Site.Method, m.Code.Method) && IsLibrary(m.Site.Method) {
		t = finding.Tf(finding.T("%s in %s", "%s 位于 %s"), t, m.Site.String())
	}
	if m.HasCode {
		t = finding.Tf(finding.T("%s, from %s (%.0f%% of it; the line is on the stack in %.0f%% of all their time)", "%s，来自 %s（占其中 %.0f%%；该行出现在其全部时间的 %.0f%% 的调用栈上）"),
			t, m.Code.String(), 100*m.CodeShare, 100*m.CodeTotal)
	}
	if m.Lock != "" {
		t = finding.Tf(finding.T("%s; lock %s", "%s；锁 %s"), t, m.Lock)
	}
	if m.Holder.Method != "" {
		t = finding.Tf(finding.T("%s, held by code at %s", "%s，持有者在 %s"), t, m.Holder.String())
	}
	switch {
	case strings.HasPrefix(m.Peer, "/"):
		t = finding.Tf(finding.T("%s; file %s", "%s；文件 %s"), t, m.Peer)
	case m.Peer != "":
		t = finding.Tf(finding.T("%s; peer %s", "%s；对端 %s"), t, m.Peer)
	}
	if m.Holding > 0 {
		u, uz := unitOf(m.Source)
		t = finding.Tf(finding.T("%s; held meanwhile by code at %s, %s (%d %s)", "%s；同时持有者在 %s，状态 %s（%d %s）"),
			t, m.HoldingCode.String(), string(m.HoldingState), m.Holding, finding.T(u, uz))
	}
	return finding.Tf(finding.T("%s.", "%s。"), t)
}

// Rules is the catalogue in the one rule shape.
func Rules() []finding.Rule[*Evidence] {
	es := Catalogue()
	rs := make([]finding.Rule[*Evidence], len(es))
	for i := range es {
		rs[i] = es[i].Rule()
	}
	return rs
}

// Named is the mechanism Name chose and the others that matched.
type Named struct {
	Entry   *Entry
	Finding finding.Finding
	Match   Match
	// Score is the share Name ranked it by (after the symptom and generic
	// discounts); Symptom says a CPU-saturated run read it as a symptom.
	Score   float64
	Symptom bool
}

// Name evaluates the catalogue over e and ranks what matched: the largest
// share of the request threads' time first. A queue (a lock, a park, a
// wait) while the CPUs are saturated and running is the larger share is a
// symptom of the saturation, ranked behind the CPU's mechanisms; a generic
// entry ranks behind a specific one over the same time. families, when
// given, keeps only those families (the verdict's branch).
func Name(e *Evidence, families ...Family) []Named {
	es := Catalogue()
	rs := Rules()
	fs := map[string][]finding.Finding{}
	for i := range rs {
		if len(families) > 0 && !containsFamily(families, es[i].Family) {
			continue
		}
		for _, f := range rs[i].Evaluate(e) {
			if f.Status == finding.Fail {
				fs[f.ID] = append(fs[f.ID], f)
			}
		}
	}
	running := 0.0
	for _, src := range []Source{FromJFR, FromDumps} {
		if b := e.Account().Book(src); b != nil && b.RequestEvents > 0 {
			running = max(running, b.Share(Running))
		}
	}
	var out []Named
	for i := range es {
		en := &es[i]
		for _, f := range fs[en.ID] {
			m := e.matches[en.ID]
			n := Named{Entry: en, Finding: f, Match: m, Score: m.Share}
			if en.Generic {
				n.Score *= 0.6
			}
			// Slices see the time between GC pauses; a GC entry's score is
			// the pauses' share of the wall clock: on one scale, the threads'
			// shares are of what the pauses left.
			if m.Of > 0 && e.GC.PausePct > 0 {
				n.Score *= 1 - min(e.GC.PausePct, 100)/100
			}
			if e.Saturated && en.Family != CPU && en.Family != GC && en.Family != Host && m.Of > 0 &&
				!waitsOnCPU(en) && m.Share < running {
				n.Score *= 0.3
				n.Symptom = true
			}
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// waitsOnCPU: the entry's time is itself CPU work behind a lock (a class
// lock around computation): not a symptom of saturation.
func waitsOnCPU(en *Entry) bool { return en.ID == "mech.lock.class-cpu" }

func containsFamily(fs []Family, f Family) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// Validate checks the catalogue: the rule shape's checks, the family in
// the ID, a signature and a fix for every entry.
func Validate(es []Entry) error {
	rs := make([]finding.Rule[*Evidence], len(es))
	var errs []string
	for i := range es {
		en := &es[i]
		rs[i] = en.Rule()
		if !strings.HasPrefix(en.ID, "mech."+string(en.Family)+".") && !(en.Family == EventLoop && strings.HasPrefix(en.ID, "mech.reactive.")) &&
			!(en.Family == IO && strings.HasPrefix(en.ID, "mech.net.")) {
			errs = append(errs, en.ID+": ID must start with mech."+string(en.Family)+".")
		}
		if !en.Sig.sliceCriteria() && len(en.Sig.Needs) == 0 {
			errs = append(errs, en.ID+": empty signature")
		}
		if !en.Sig.sliceCriteria() && en.Sig.Score == "" {
			errs = append(errs, en.ID+": a facts-only signature needs a Score fact")
		}
		if len(en.Fixes) == 0 {
			errs = append(errs, en.ID+": no fix")
		}
		for _, f := range en.Fixes {
			if f.Do.EN == "" || f.Do.ZH == "" {
				errs = append(errs, en.ID+": a fix needs English and Chinese")
			}
		}
	}
	if err := finding.ValidateRules(rs); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("mechanism catalogue: %s", strings.Join(errs, "; "))
	}
	return nil
}
