package compare

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// writeJUnit renders c as JUnit XML for Jenkins and GitLab: one testcase
// per metric with an interval (and the error rate), failed when the gate
// (pct > 0) or, without a gate, a significant regression says so; an
// inconclusive metric is skipped with the runs to add. Run c.Gate first.
func writeJUnit(w io.Writer, c *Comparison, lang finding.Lang, pct float64) error {
	L := labelsFor(lang)
	s := junitSuite{Name: "tuneloop.compare"}
	failed := map[string]string{}
	for i, r := range c.Regressions {
		if i < len(c.RegressedKeys) {
			failed[c.RegressedKeys[i]] = r.In(lang)
		}
	}
	skipped := map[string]string{}
	for i, r := range c.Inconclusive {
		if i < len(c.InconclusiveKeys) {
			skipped[c.InconclusiveKeys[i]] = r.In(lang)
		}
	}
	for _, st := range c.Stats {
		tc := junitCase{Name: st.Label.In(lang), Classname: "tuneloop.compare." + st.Key,
			SystemOut: finding.SafeLine(fmt.Sprintf("%s -> %s %s: %+.1f%% %s, %s %d/%d, %s", num(st.Before), num(st.After), st.Unit, st.ChangePct, ciText(st), L.runs, st.NBefore, st.NAfter, statVerdict(st, L)))}
		switch {
		case failed[st.Key] != "":
			tc.Failure = &junitMessage{Message: finding.SafeLine(failed[st.Key]), Type: "regression", Text: tc.SystemOut}
		case pct <= 0 && st.Verdict == stats.Worse:
			tc.Failure = &junitMessage{Message: finding.SafeLine(st.Label.In(lang) + ": " + statVerdict(st, L) + " " + ciText(st)), Type: "regression", Text: tc.SystemOut}
		case pct > 0 && (skipped[st.Key] != "" || skipped[""] != ""):
			tc.Skipped = &junitMessage{Message: finding.SafeLine(skipped[st.Key] + skipped[""])}
		case st.Verdict == stats.Inconclusive:
			tc.Skipped = &junitMessage{Message: finding.SafeLine(statVerdict(st, L))}
		}
		s.add(tc)
	}
	for _, r := range c.Rows {
		if r.Key != "error_pct" {
			continue
		}
		tc := junitCase{Name: r.Label.In(lang), Classname: "tuneloop.compare.error_pct", SystemOut: fmt.Sprintf("%s -> %s", value(r.Before, r.Unit), value(r.After, r.Unit))}
		if m := failed["error_pct"]; m != "" {
			tc.Failure = &junitMessage{Message: finding.SafeLine(m), Type: "regression"}
		}
		s.add(tc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{s}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func (s *junitSuite) add(tc junitCase) {
	s.Tests++
	if tc.Failure != nil {
		s.Failures++
	}
	if tc.Skipped != nil {
		s.Skipped++
	}
	s.Cases = append(s.Cases, tc)
}
