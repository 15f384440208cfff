package porting

import (
	"strings"
	"testing"
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
