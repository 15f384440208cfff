package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/rules"
)

// hostile is what a target controls: thread names, NIC names, JVM arguments.
const hostile = "evil\x1b[2J<script>alert(1)</script> | `rm -rf` *x* [a](http://x)\n[CRITICAL] forged.line  \xff\xfe"

var codeSpan = regexp.MustCompile("`[^`\n]*`")

func hostileCheck() *Check {
	fs := []finding.Finding{{
		ID: "jvm.heap.xms-xmx", Category: "jvm", Status: finding.Fail, Severity: finding.Warning,
		Subject: "pid 1 " + hostile, Title: finding.T("Initial heap differs", "初始堆与最大堆不同"),
		Observed: finding.T("seen "+hostile, "现状 "+hostile),
		Evidence: []finding.Evidence{{Key: "arg", Value: hostile, Source: "/proc/1/cmdline"}},
		Fix:      finding.Fix{Apply: "JAVA_OPTS: " + hostile + " ```", Revert: "x", Note: finding.T("note "+hostile, "说明")},
	}, {ID: "mem.thp.enabled", Category: "mem", Status: finding.Pass, Observed: finding.T(hostile, hostile)}}
	return NewCheck("test", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "java-web", Host{Hostname: hostile, Logical: 2}, fs)
}

func TestMarkdownEscapesHostileStrings(t *testing.T) {
	var b bytes.Buffer
	if err := writeCheckMarkdown(&b, hostileCheck(), finding.EN); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	// Outside fenced code blocks (where text is literal) nothing may be
	// raw HTML or a line forged by a newline in a value.
	var prose []string
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			prose = append(prose, line)
		}
	}
	// Code spans are literal in CommonMark, so only text outside them counts.
	if strings.Contains(codeSpan.ReplaceAllString(strings.Join(prose, "\n"), ""), "<script>") {
		t.Error("raw <script> in Markdown prose")
	}
	if strings.ContainsRune(md, 0xff) || strings.Contains(md, "\x1b") {
		t.Error("invalid UTF-8 or ESC passed through")
	}
	for _, line := range prose {
		if strings.HasPrefix(line, "[CRITICAL] forged") {
			t.Errorf("a newline in a value forged a line: %q", line)
		}
		// Table rows keep their column count: escaped pipes do not split cells.
		if strings.HasPrefix(line, "| 1 |") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 5 {
			t.Errorf("table row broken by a value: %q", line)
		}
	}
	// The fix block uses a fence longer than the backticks inside it.
	if !strings.Contains(md, "````sh\nJAVA_OPTS:") {
		t.Errorf("apply block fence not lengthened:\n%s", md)
	}
}

func TestTextFoldsHostileNewlines(t *testing.T) {
	var b bytes.Buffer
	if err := writeCheckText(&b, hostileCheck(), TextOptions{Lang: finding.EN, All: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Error("ESC reached the terminal output")
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "[CRITICAL]") {
			t.Errorf("forged finding header: %q", line)
		}
	}
	if !strings.Contains(b.String(), "[WARNING] jvm.heap.xms-xmx") {
		t.Errorf("real finding missing:\n%s", b.String())
	}
}

func TestJSONStaysValidWithInvalidUTF8(t *testing.T) {
	var b bytes.Buffer
	if err := writeCheckJSON(&b, hostileCheck()); err != nil {
		t.Fatal(err)
	}
	var back Check
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("JSON output does not parse: %v", err)
	}
	if back.Summary.Fail != 1 || back.Summary.Pass != 1 || !strings.Contains(back.Findings[0].Subject, "<script>") {
		t.Errorf("round trip lost data: %+v", back.Summary)
	}
}

func TestPadRightCountsWideCharacters(t *testing.T) {
	for _, c := range []struct {
		in   string
		cols int
	}{{"seen:", 10}, {"现状:", 10}, {"持久化:", 10}, {"a very long label:", 18}} {
		got := padRight(c.in, 10)
		w := 0
		for _, r := range got {
			w++
			if r >= 0x2e80 {
				w++
			}
		}
		if w != c.cols {
			t.Errorf("padRight(%q) is %d columns wide, want %d", c.in, w, c.cols)
		}
	}
}

func TestVerdictNeedsSomethingChecked(t *testing.T) {
	if v := checkVerdict(finding.Counts{Unavailable: 40}); !strings.Contains(v.EN, "Nothing could be checked") {
		t.Errorf("all-unavailable verdict: %q", v.EN)
	}
	if v := checkVerdict(finding.Counts{Pass: 3}); !strings.Contains(v.EN, "every check that could run passed") {
		t.Errorf("all-pass verdict: %q", v.EN)
	}
}

// The check and the rule catalogue go through the one JSON writer: the same
// bytes as WriteJSON, so a shell command in a fix reads ">>", not "\u003e\u003e".
func TestCheckJSONIsWriteJSON(t *testing.T) {
	c := hostileCheck()
	c.Findings[0].Fix.Persist = "echo 'vm.swappiness = 10' >> /etc/sysctl.d/90-tuneloop.conf && sysctl --system"
	var got, want bytes.Buffer
	if err := writeCheckJSON(&got, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&want, c); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Error("WriteCheckJSON differs from WriteJSON")
	}
	if s := got.String(); !strings.Contains(s, ">> /etc/sysctl.d/90-tuneloop.conf && sysctl") || strings.Contains(s, `\u003e`) {
		t.Errorf("shell operators escaped in JSON:\n%s", s)
	}

	rs := []RuleInfo{{ID: "mem.x", Title: finding.T("a < b & c", "a < b & c"), References: []string{"man 5 proc"}}}
	got.Reset()
	want.Reset()
	if err := writeRuleListJSON(&got, rs); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&want, rs); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() || !strings.Contains(got.String(), `"a < b & c"`) {
		t.Errorf("rule list JSON is not WriteJSON's:\n%s", got.String())
	}
}

// Terminal text goes through finding.Safe: an escape sequence from a target
// is shown, not executed, and a newline cannot forge a finding line.
func TestCheckTextNeutralisesControls(t *testing.T) {
	var b bytes.Buffer
	if err := writeCheckText(&b, hostileCheck(), TextOptions{Lang: finding.EN}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if strings.Contains(s, "\x1b") || !strings.Contains(s, `evil\x1b[2J`) {
		t.Errorf("escape sequence not neutralised:\n%s", s)
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "[CRITICAL]") {
			t.Errorf("forged finding header: %q", line)
		}
	}
}

// The catalogue a user reads (docs/rules.md, check --list) cites public
// material only: never the team's research notes or seed documents.
func TestRuleCatalogueCitesPublicSourcesOnly(t *testing.T) {
	kb := rules.All()
	infos := make([]RuleInfo, len(kb))
	for i, r := range kb {
		infos[i] = RuleInfo{ID: r.ID, Category: r.Category, Severity: r.Severity, Title: r.Title, Checks: r.Checks,
			Why: r.Why, Risk: r.Risk, Workload: r.Workload, References: r.References, Arch: r.Arch}
	}
	var b bytes.Buffer
	if err := writeRuleListMarkdown(&b, infos); err != nil {
		t.Fatal(err)
	}
	if err := writeRuleListJSON(&b, infos); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "transhuge.rst") {
		t.Fatal("catalogue lacks the THP rule's kernel reference")
	}
	for i, line := range strings.Split(b.String(), "\n") {
		for _, m := range []string{"research/", "anchors-", "seeds/", ".md #"} {
			if strings.Contains(line, m) {
				t.Errorf("catalogue line %d cites a private note (%q): %.160s", i+1, m, line)
			}
		}
	}
}

// Every set validates, every rule says what it reads, and
// docs/findings.md documents each rule under its own anchor and cites
// public material only.
func TestRuleSetsDocumentEveryRule(t *testing.T) {
	sets, err := RuleSets()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeRuleSetsMarkdown(&b, sets); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	seen := map[string]string{}
	for _, s := range sets {
		if len(s.Rules) == 0 || s.Title.ZH == "" || s.Reads.ZH == "" {
			t.Errorf("set %s: %d rules, title %q, reads %q", s.Name, len(s.Rules), s.Title.ZH, s.Reads.ZH)
		}
		for _, r := range s.Rules {
			if other, dup := seen[r.ID]; dup {
				t.Errorf("%s is in the sets %s and %s", r.ID, other, s.Name)
			}
			seen[r.ID] = s.Name
			for name, x := range map[string]finding.Text{"title": r.Title, "checks": r.Checks, "why": r.Why, "risk": r.Risk, "workload": r.Workload} {
				if x.EN == "" || x.ZH == "" {
					t.Errorf("%s (set %s): its %s is not in both languages: %+v", r.ID, s.Name, name, x)
				}
			}
			if len(r.References) == 0 {
				t.Errorf("%s (set %s): no reference", r.ID, s.Name)
			}
			if len(r.Reads) == 0 {
				t.Errorf("%s: says nothing of what it reads", r.ID)
			}
			if !strings.Contains(doc, `<a id="`+Anchor(r.ID)+`"></a>`) {
				t.Errorf("%s has no section in the document", r.ID)
			}
		}
	}
	for i, line := range strings.Split(doc, "\n") {
		for _, m := range []string{"research/", "anchors-", "seeds/", ".md #"} {
			if strings.Contains(line, m) {
				t.Errorf("line %d cites a private note (%q): %.160s", i+1, m, line)
			}
		}
	}
}
