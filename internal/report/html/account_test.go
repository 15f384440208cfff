package html

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// TestRunPageShowsTheTimeAccount: a real recorded run's page has a bar per
// thread role and the matched mechanisms, the verdict's first, with its
// code line, in both languages.
func TestRunPageShowsTheTimeAccount(t *testing.T) {
	L, err := verdict.Load(filepath.Join("..", "..", "verdict", "testdata", "runs", "pool-starvation"))
	if err != nil {
		t.Fatal(err)
	}
	d := verdict.Decide(L)
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		p := report.NewRunPage(L, d, l)
		if len(p.Account) == 0 || len(p.Mechanisms) == 0 {
			t.Fatalf("no account (%d rows) or mechanisms (%d)", len(p.Account), len(p.Mechanisms))
		}
		var b bytes.Buffer
		if err := WriteRun(&b, p); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		want := []string{`id="sec-account"`, `class="hbar"`, "request-worker", p.Mechanisms[0].ID, p.Mechanisms[0].Code}
		if l == finding.ZH {
			want = append(want, "线程时间去向")
		}
		for _, w := range want {
			if w == "" || !strings.Contains(s, w) {
				t.Errorf("%s page lacks %q", l, w)
			}
		}
	}
}
