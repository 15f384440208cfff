package finding

import (
	"fmt"
	"sort"
	"strings"
)

// Rule is the one shape of every check tuneloop makes, whatever it reads:
// the host audit (E = the host facts), a recorded run's series, a GC log's
// summary, a set of thread dumps, a logging configuration, and the
// mechanism catalogue of the diagnosis. A rule is data (a stable ID, the
// evidence it reads, what it checks, why it matters, its risk, where it
// applies, public references) plus one pure condition over evidence of type
// E. Evaluate is the one engine: it fills every finding's fixed parts from
// the rule, ranks them, and turns a rule that panics into an unavailable
// finding instead of a crash.
type Rule[E any] struct {
	// ID is stable and dotted: "<category>.<item>", e.g. "mem.thp.enabled".
	ID       string
	Category string
	// Severity of a failure unless the outcome overrides it.
	Severity Severity
	Title    Text
	// Checks says in one sentence what the rule looks at (lists and docs).
	Checks Text
	Why    Text
	Risk   Text
	// Workload says which services the recommendation is for.
	Workload Text
	// Recommended is the rule's standing advice for a Fail outcome that
	// gives none of its own (lists and docs print it as what to do).
	Recommended Text
	// Reads names the evidence the rule reads ("gc.pauses", "jfr.execution",
	// "/proc/stat"): the docs list it, and a finding can say what it rested on.
	Reads      []string
	References []string
	// Fix is the rule's standing fix for a Fail outcome; an outcome with a
	// Fix of its own wins, and a pass has nothing to fix.
	Fix Fix
	// Profiles where the rule applies (host rules); nil means all.
	Profiles []string
	// Arch restricts the rule to "x86_64" or "aarch64"; "" means any.
	Arch string
	// Eval is the condition: zero or more outcomes, one per subject.
	Eval func(E) []Outcome
}

// Outcome is one result of a rule for one subject (the whole input when
// Subject is ""). Fields left zero are taken from the Rule.
type Outcome struct {
	Subject string
	// ID, when set, is the ID of another finding the outcome restates under
	// the rule's headline (a hung service's cause, read in its dumps or its
	// log): what matches on the cause (a CI gate, a comparison of runs)
	// still matches. Empty: the rule's ID.
	ID     string
	Status Status
	// Severity overrides Rule.Severity for a Fail when SevSet is true (a
	// rule may escalate: swap in use is critical, swappiness 60 a warning).
	Severity Severity
	SevSet   bool
	// Title overrides the rule's when the headline depends on what was seen
	// (the lock's library, the collector).
	Title       Text
	Observed    Text
	Evidence    []Evidence
	Recommended Text
	Fix         Fix
	// Reason explains Unavailable or Skipped.
	Reason Text
	// Why and Risk override the rule's when they depend on what was seen.
	Why  Text
	Risk Text
	// References override the rule's when what was seen decides which
	// documents apply (the OpenJ9 collector has options of its own).
	References []string
	// Confidence in (0,1] for inferences from series; 0 means 1 (a reading).
	Confidence float64
	Window     *Window
}

// Scoper is evidence that knows the profile it is judged for and the CPU
// architecture it was taken on; Evaluate skips rules outside that scope.
// Evidence that does not implement it is in every rule's scope.
type Scoper interface {
	// RuleScope returns the profile, and the architecture or why it is unknown.
	RuleScope() (profile, arch, archErr string)
}

// Evaluate runs every rule against e and returns the findings, ranked.
func Evaluate[E any](rs []Rule[E], e E) []Finding {
	var out []Finding
	for i := range rs {
		out = append(out, rs[i].Evaluate(e)...)
	}
	Sort(out)
	return out
}

// Evaluate runs one rule against e: out of scope is one Skipped finding, a
// panic one Unavailable finding naming the bug.
func (r *Rule[E]) Evaluate(e E) (fs []Finding) {
	if s, ok := any(e).(Scoper); ok {
		if o, out := r.outOfScope(s); out {
			return []Finding{r.Finding(o)}
		}
	}
	defer func() {
		if v := recover(); v != nil {
			fs = []Finding{r.Finding(Outcome{Status: Unavailable,
				Reason: Tf(T("internal error in rule: %v (please report it)", "规则内部错误：%v（请报告此问题）"), v)})}
		}
	}()
	for _, o := range r.Eval(e) {
		fs = append(fs, r.Finding(o))
	}
	return fs
}

func (r *Rule[E]) outOfScope(s Scoper) (Outcome, bool) {
	profile, arch, archErr := s.RuleScope()
	if len(r.Profiles) > 0 && !contains(r.Profiles, profile) {
		return Outcome{Status: Skipped, Reason: Tf(T("not part of the %s profile", "不属于 %s 配置档"), profile)}, true
	}
	if r.Arch == "" {
		return Outcome{}, false
	}
	if arch == "" {
		return Outcome{Status: Unavailable, Reason: T("CPU architecture unknown: "+archErr, "无法确定 CPU 架构："+archErr)}, true
	}
	if arch != r.Arch {
		return Outcome{Status: Skipped, Reason: Tf(T("only for %s hosts", "仅适用于 %s 主机"), r.Arch)}, true
	}
	return Outcome{}, false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Finding turns one outcome of the rule into a finding: the fixed parts
// from the rule, the rest from the outcome. Anything but a Fail is Info.
func (r *Rule[E]) Finding(o Outcome) Finding {
	f := Finding{
		ID: r.ID, Category: r.Category, Status: o.Status, Severity: r.Severity,
		Subject: o.Subject, Title: pick(o.Title, r.Title), Observed: o.Observed, Evidence: o.Evidence,
		Why: pick(o.Why, r.Why), Recommended: o.Recommended, Fix: o.Fix, Risk: pick(o.Risk, r.Risk),
		Workload: r.Workload, Reason: o.Reason, References: r.References, Confidence: o.Confidence, Window: o.Window,
	}
	if o.ID != "" {
		f.ID = o.ID
	}
	if f.Confidence == 0 {
		f.Confidence = 1
	}
	if o.References != nil {
		f.References = o.References
	}
	if o.Status == Fail && isZeroFix(f.Fix) {
		f.Fix = r.Fix
	}
	if o.Status == Fail && f.Recommended.IsZero() {
		f.Recommended = r.Recommended
	}
	if o.SevSet {
		f.Severity = o.Severity
	}
	if f.Status != Fail {
		f.Severity = Info
	}
	return f
}

func pick(override, def Text) Text {
	if !override.IsZero() {
		return override
	}
	return def
}

func isZeroFix(x Fix) bool {
	return x.Apply == "" && x.Revert == "" && x.Persist == "" && x.Note.IsZero() && !x.Reboot && len(x.Changes) == 0
}

// Info is the rule as data, without its condition: what `check --list`,
// docs/rules.md and the mechanism catalogue's docs print.
func (r *Rule[E]) Info() RuleInfo {
	return RuleInfo{ID: r.ID, Category: r.Category, Severity: r.Severity, Title: r.Title, Checks: r.Checks,
		Why: r.Why, Risk: r.Risk, Workload: r.Workload, Recommended: r.Recommended, Reads: r.Reads, References: r.References,
		Profiles: r.Profiles, Arch: r.Arch}
}

// RuleInfo is a rule's data for lists and docs.
type RuleInfo struct {
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Severity Severity `json:"severity"`
	Title    Text     `json:"title"`
	Checks   Text     `json:"checks"`
	Why      Text     `json:"why"`
	Risk     Text     `json:"risk"`
	Workload Text     `json:"workload"`
	// Recommended is the standing advice, when the rule has one.
	Recommended Text     `json:"recommended,omitzero"`
	Reads       []string `json:"reads,omitempty"`
	References  []string `json:"references"`
	Profiles    []string `json:"profiles,omitempty"` // empty = all
	Arch        string   `json:"arch,omitempty"`     // empty = any
}

// Infos lists the data of every rule, in order.
func Infos[E any](rs []Rule[E]) []RuleInfo {
	out := make([]RuleInfo, len(rs))
	for i := range rs {
		out[i] = rs[i].Info()
	}
	return out
}

// ValidateRules checks a rule set: unique well-formed IDs that start with
// their category, a title, what it checks, why and risk in both languages,
// a reference and a condition. Each set's tests call it; `check --list`
// too.
func ValidateRules[E any](rs []Rule[E]) error {
	seen := map[string]bool{}
	var errs []string
	for i := range rs {
		r := &rs[i]
		if r.ID == "" || strings.ContainsAny(r.ID, " /") || !strings.Contains(r.ID, ".") {
			errs = append(errs, fmt.Sprintf("rule %d: bad ID %q", i, r.ID))
		}
		if seen[r.ID] {
			errs = append(errs, "duplicate rule ID "+r.ID)
		}
		seen[r.ID] = true
		if !strings.HasPrefix(r.ID, r.Category+".") {
			errs = append(errs, r.ID+": ID must start with its category "+r.Category)
		}
		for _, t := range []struct {
			name string
			t    Text
		}{{"Title", r.Title}, {"Checks", r.Checks}, {"Why", r.Why}, {"Risk", r.Risk}, {"Workload", r.Workload}} {
			if t.t.EN == "" || t.t.ZH == "" {
				errs = append(errs, r.ID+": "+t.name+" needs English and Chinese")
			}
		}
		if len(r.References) == 0 {
			errs = append(errs, r.ID+": no reference")
		}
		if r.Eval == nil {
			errs = append(errs, r.ID+": no Eval")
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("rules: %s", strings.Join(errs, "; "))
	}
	return nil
}

// WithSeverity sets the outcome's severity, overriding the rule's.
func (o Outcome) WithSeverity(s Severity) Outcome { o.Severity, o.SevSet = s, true; return o }

// On sets the subject.
func (o Outcome) On(subject string) Outcome { o.Subject = subject; return o }

// Because overrides the rule's Why for this outcome.
func (o Outcome) Because(why Text) Outcome { o.Why = why; return o }
