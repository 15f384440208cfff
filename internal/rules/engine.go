// Package rules is tuneloop's knowledge base: each Rule is data (ID, texts,
// references, where it applies) plus a pure function from host facts to
// outcomes. Evaluate turns outcomes into ranked findings. Rules never read
// files or change the host; everything they know comes from sysinfo.Facts.
package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Profile is the workload the recommendations are tuned for.
type Profile string

const (
	// JavaWeb: a Java HTTP/RPC service, throughput with sane latency (default).
	JavaWeb Profile = "java-web"
	// Database: a database or cache (Redis-style) host: no THP, no overcommit games.
	Database Profile = "database"
	// Latency: a latency-critical Java service: p99 over power and throughput.
	Latency Profile = "latency"
)

// Profiles lists every profile, in display order.
var Profiles = []Profile{JavaWeb, Database, Latency}

// ParseProfile validates a profile name.
func ParseProfile(s string) (Profile, error) {
	for _, p := range Profiles {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown profile %q (want java-web, database or latency)", s)
}

// Ctx is what a rule's Eval sees.
type Ctx struct {
	F       *sysinfo.Facts
	Profile Profile
}

// Outcome is one result of a rule, for one subject (or for the host when
// Subject is ""). Fields left zero are taken from the Rule.
type Outcome struct {
	Subject string
	Status  finding.Status
	// Severity overrides Rule.Severity for a Fail when SevSet is true (a rule
	// may escalate: e.g. swap in use is critical, swappiness 60 a warning).
	Severity    finding.Severity
	SevSet      bool
	Observed    finding.Text
	Evidence    []finding.Evidence
	Recommended finding.Text
	Fix         finding.Fix
	// Reason explains Unavailable or Skipped.
	Reason finding.Text
	// Why overrides Rule.Why when the explanation depends on what was seen.
	Why finding.Text
}

// Rule is one check of the knowledge base.
type Rule struct {
	// ID is stable and dotted: "<category>.<item>", e.g. "mem.thp.enabled".
	ID       string
	Category string
	// Severity of a failure unless the outcome overrides it.
	Severity finding.Severity
	Title    finding.Text
	// Checks says in one sentence what the rule looks at (for --list and docs/rules.md).
	Checks finding.Text
	Why    finding.Text
	Risk   finding.Text
	// Workload says which services the recommendation is for.
	Workload   finding.Text
	References []string
	// Profiles where the rule applies; nil means all.
	Profiles []Profile
	// Arch restricts the rule to "x86_64" or "aarch64"; "" means any.
	Arch string
	Eval func(c *Ctx) []Outcome
}

// Evaluate runs every rule against f for profile p and returns the findings,
// ranked. A rule that panics yields an Unavailable finding naming the bug
// instead of taking the whole audit down.
func Evaluate(rs []Rule, f *sysinfo.Facts, p Profile) []finding.Finding {
	ctx := &Ctx{F: f, Profile: p}
	var out []finding.Finding
	for i := range rs {
		out = append(out, evalOne(&rs[i], ctx)...)
	}
	finding.Sort(out)
	return out
}

func evalOne(r *Rule, ctx *Ctx) (fs []finding.Finding) {
	if !r.appliesTo(ctx.Profile) {
		return []finding.Finding{r.finding(Outcome{Status: finding.Skipped,
			Reason: finding.Tf(finding.T("not part of the %s profile", "不属于 %s 配置档"), ctx.Profile)})}
	}
	if r.Arch != "" {
		arch := ctx.F.Kernel.Arch
		if !arch.OK {
			return []finding.Finding{r.finding(Outcome{Status: finding.Unavailable,
				Reason: finding.T("CPU architecture unknown: "+arch.Err, "无法确定 CPU 架构："+arch.Err)})}
		}
		if arch.Value != r.Arch {
			return []finding.Finding{r.finding(Outcome{Status: finding.Skipped,
				Reason: finding.Tf(finding.T("only for %s hosts", "仅适用于 %s 主机"), r.Arch)})}
		}
	}
	defer func() {
		if v := recover(); v != nil {
			fs = []finding.Finding{r.finding(Outcome{Status: finding.Unavailable,
				Reason: finding.Tf(finding.T("internal error in rule: %v (please report it)", "规则内部错误：%v（请报告此问题）"), v)})}
		}
	}()
	for _, o := range r.Eval(ctx) {
		fs = append(fs, r.finding(o))
	}
	return fs
}

func (r *Rule) appliesTo(p Profile) bool {
	if r.Profiles == nil {
		return true
	}
	for _, q := range r.Profiles {
		if q == p {
			return true
		}
	}
	return false
}

func (r *Rule) finding(o Outcome) finding.Finding {
	f := finding.Finding{
		ID: r.ID, Category: r.Category, Status: o.Status, Severity: r.Severity,
		Subject: o.Subject, Title: r.Title, Observed: o.Observed, Evidence: o.Evidence,
		Why: r.Why, Recommended: o.Recommended, Fix: o.Fix, Risk: r.Risk,
		Workload: r.Workload, Reason: o.Reason, References: r.References, Confidence: 1,
	}
	if o.SevSet {
		f.Severity = o.Severity
	}
	if !o.Why.IsZero() {
		f.Why = o.Why
	}
	if f.Status != finding.Fail {
		f.Severity = finding.Info
	}
	return f
}

// Validate checks the knowledge base itself: unique well-formed IDs, both
// languages filled, a reference, an Eval. Tests and `check --list` call it.
func Validate(rs []Rule) error {
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
		for name, t := range map[string]finding.Text{"Title": r.Title, "Checks": r.Checks, "Why": r.Why, "Risk": r.Risk, "Workload": r.Workload} {
			if t.EN == "" || t.ZH == "" {
				errs = append(errs, r.ID+": "+name+" needs English and Chinese")
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
		return fmt.Errorf("knowledge base: %s", strings.Join(errs, "; "))
	}
	return nil
}
