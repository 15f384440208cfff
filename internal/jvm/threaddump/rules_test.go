package threaddump

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// culpritFinding is the finding of one culprit: its fingerprint's rule
// applied to it alone.
func culpritFinding(r *Report, c *Culprit, src string) finding.Finding {
	rule := culpritRule(c.FP)
	return rule.Finding(culpritOutcome(&DumpInput{R: r, Source: src}, c))
}

// shareFinding is the blocked-share rule's finding on r.
func shareFinding(r *Report, src string) finding.Finding {
	rule := shareRule()
	return rule.Evaluate(&DumpInput{R: r, Source: src})[0]
}

func TestRulesAreValid(t *testing.T) {
	if err := finding.ValidateRules(Rules()); err != nil {
		t.Fatal(err)
	}
	if err := finding.ValidateRules(SeriesRules()); err != nil {
		t.Fatal(err)
	}
	for _, r := range append(finding.Infos(Rules()), finding.Infos(SeriesRules())...) {
		if strings.Contains(r.Checks.EN+r.Checks.ZH, "%!") || len(r.Reads) == 0 {
			t.Errorf("%s: checks %q / %q, reads %v", r.ID, r.Checks.EN, r.Checks.ZH, r.Reads)
		}
	}
}

// Every finding of every fixture dump comes from a listed rule, with the
// rule's texts in both languages and a reference.
func TestFindingsComeFromRules(t *testing.T) {
	known := map[string]bool{}
	for _, r := range append(finding.Infos(Rules()), finding.Infos(SeriesRules())...) {
		known[r.ID] = true
	}
	seen := map[string]bool{}
	for _, name := range []string{"jdk17_deadlock_jcmd.txt", "jdk25_deadlock_jcmd.txt", "jdk17_zoo_startup-deadlock_jcmd.txt"} {
		ds := parseFixture(t, name)
		rs := make([]*Report, len(ds))
		srcs := make([]string, len(ds))
		for i, d := range ds {
			rs[i], srcs[i] = Analyze(d), name
		}
		for _, f := range FindingsOver(rs, srcs) {
			seen[f.ID] = true
			if !known[f.ID] || f.Why.ZH == "" || f.Risk.ZH == "" || len(f.References) == 0 {
				t.Errorf("%s: %s not from a full rule: %+v", name, f.ID, f)
			}
		}
	}
	if !seen["threaddump.deadlock"] || !seen["threaddump.blocked-share"] {
		t.Errorf("fixtures gave %v", seen)
	}
}
