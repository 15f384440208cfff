package porting

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// The known-library table's Source is printed in reports as the reason for
// a verdict: it must name public material (a repository, issue, changelog),
// never the team's own notes.
func TestLibrarySourcesArePublic(t *testing.T) {
	libs := Libraries()
	if len(libs) == 0 {
		t.Fatal("no known libraries")
	}
	for _, l := range libs {
		if l.Source == "" {
			t.Errorf("%s: no source", l.Name)
		}
		for _, s := range append([]string{l.Name, l.Source}, l.Coords...) {
			low := strings.ToLower(s)
			for _, m := range []string{"research/", "anchors-", "seeds/", ".md #", "§"} {
				if strings.Contains(low, m) {
					t.Errorf("%s cites a private note (%q): %q", l.Name, m, s)
				}
			}
		}
	}
}

// The porting rules validate (both languages, a reference, unique IDs) and
// cover every kind the scan judges.
func TestPortingRulesValidate(t *testing.T) {
	if err := finding.ValidateRules(Rules()); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"library", "native", "jni", "jdk", "jvm-options", "base-image", "archive"} {
		if portingRules["porting."+k] == nil {
			t.Errorf("no rule for %s", k)
		}
	}
	// Listed with every other set (check --list --all, docs/findings.md).
	sets, err := report.RuleSets()
	if err != nil {
		t.Fatal(err)
	}
	if s := sets[len(sets)-1]; s.Name != "porting" || len(s.Rules) != len(Rules()) {
		t.Errorf("the porting set is not listed: last set %s, %d rules", s.Name, len(s.Rules))
	}
}
