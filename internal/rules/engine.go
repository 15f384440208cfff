// Package rules is tuneloop's knowledge base: each Rule is data (ID, texts,
// references, where it applies) plus a pure function from host facts to
// outcomes. Evaluate turns outcomes into ranked findings. Rules never read
// files or change the host; everything they know comes from sysinfo.Facts.
package rules

import (
	"fmt"

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
	return "", finding.Errorf(finding.T("unknown profile %q (want java-web, database or latency)", "未知的负载配置档 %q（应为 java-web、database 或 latency）"), s)
}

// Ctx is what a rule's Eval sees.
type Ctx struct {
	F       *sysinfo.Facts
	Profile Profile
	// Probe is what a probe of this host measured (nil: none).
	Probe *Probe
}

// RuleScope says which profile the audit is for and the host's architecture
// (or why it is unknown): the engine skips rules outside that scope.
func (c *Ctx) RuleScope() (profile, arch, archErr string) {
	a := c.F.Kernel.Arch
	if !a.OK {
		return string(c.Profile), "", a.Err
	}
	return string(c.Profile), a.Value, ""
}

// Outcome is one result of a rule (the one shape of every rule's result).
type Outcome = finding.Outcome

// Rule is one check of the knowledge base, in the one shape of every rule.
type Rule = finding.Rule[*Ctx]

// Evaluate runs every rule against f for profile p and returns the findings,
// ranked. A rule that panics yields an Unavailable finding naming the bug
// instead of taking the whole audit down.
func Evaluate(rs []Rule, f *sysinfo.Facts, p Profile) []finding.Finding {
	return finding.Evaluate(rs, &Ctx{F: f, Profile: p})
}

// Validate checks the knowledge base itself: unique well-formed IDs, both
// languages filled, a reference, an Eval. Tests and `check --list` call it.
func Validate(rs []Rule) error {
	if err := finding.ValidateRules(rs); err != nil {
		return fmt.Errorf("knowledge base: %w", err)
	}
	return nil
}

// EvaluateJVM runs the knowledge base's jvm.* rules on f and keeps the
// checks that could decide (fail or pass), each named after subject: one
// live JVM as check sees it (`jvm PID`), or a pasted command line alone
// (`analyze --cmdline`), where the rules needing a live host say unavailable
// and are left out.
func EvaluateJVM(f *sysinfo.Facts, p Profile, subject string) []finding.Finding {
	var jvmRules []Rule
	for _, r := range All() {
		if r.Category == "jvm" {
			jvmRules = append(jvmRules, r)
		}
	}
	var out []finding.Finding
	for _, fd := range Evaluate(jvmRules, f, p) {
		if fd.Status == finding.Fail || fd.Status == finding.Pass {
			fd.Subject = subject
			out = append(out, fd)
		}
	}
	return out
}
