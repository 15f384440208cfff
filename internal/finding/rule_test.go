package finding

import (
	"strings"
	"testing"
)

type scoped struct{ profile, arch, archErr string }

func (s scoped) RuleScope() (string, string, string) { return s.profile, s.arch, s.archErr }

func TestRuleEngineFillsScopesAndSurvivesPanics(t *testing.T) {
	rs := []Rule[scoped]{
		{ID: "x.fail", Category: "x", Severity: Warning, Title: T("t", "t"), Why: T("why", "原因"),
			Fix: Fix{Apply: "sysctl -w a=1", Revert: "sysctl -w a=0"}, Recommended: T("do", "做"), References: []string{"doc"},
			Eval: func(scoped) []Outcome {
				return []Outcome{{Status: Fail, Subject: "eth0"}, {Status: Fail, Subject: "eth1", Severity: Critical, SevSet: true,
					Why: T("seen", "所见"), Fix: Fix{Apply: "own"}, References: []string{"other doc"}}, {Status: Pass, Severity: Critical, SevSet: true},
					{Status: Fail, Subject: "eth2", ID: "y.cause"}}
			}},
		{ID: "x.latency", Category: "x", Profiles: []string{"latency"}, Eval: func(scoped) []Outcome { t.Fatal("ran out of scope"); return nil }},
		{ID: "x.arm", Category: "x", Arch: "aarch64", Eval: func(scoped) []Outcome { t.Fatal("ran on the wrong arch"); return nil }},
		{ID: "x.panics", Category: "x", Eval: func(scoped) []Outcome { var m map[string]int; m["a"]++; return nil }},
	}
	fs := Evaluate(rs, scoped{profile: "java-web", arch: "x86_64"})
	by := map[string]Finding{}
	for _, f := range fs {
		by[f.Key()] = f
	}
	if f := by["x.fail/eth0"]; f.Severity != Warning || f.Fix.Revert != "sysctl -w a=0" || f.Why.EN != "why" || f.Confidence != 1 ||
		f.Recommended.EN != "do" || f.References[0] != "doc" {
		t.Errorf("eth0: rule's severity, fix and why expected, got %+v", f)
	}
	if f := by["x.fail/eth1"]; f.Severity != Critical || f.Fix.Apply != "own" || f.Why.EN != "seen" || f.References[0] != "other doc" {
		t.Errorf("eth1: the outcome's overrides expected, got %+v", f)
	}
	if f := by["y.cause/eth2"]; f.Status != Fail || f.Category != "x" || f.Why.EN != "why" {
		t.Errorf("an outcome restating another finding keeps its ID and the rule's texts: %+v", f)
	}
	if f := by["x.fail"]; f.Status != Pass || f.Severity != Info || f.Fix.Apply != "" || !f.Recommended.IsZero() {
		t.Errorf("a pass is info whatever it asked, with nothing to fix: %+v", f)
	}
	if f := by["x.latency"]; f.Status != Skipped || !strings.Contains(f.Reason.EN, "java-web") {
		t.Errorf("profile scope: %+v", f)
	}
	if f := by["x.arm"]; f.Status != Skipped {
		t.Errorf("arch scope: %+v", f)
	}
	if f := by["x.panics"]; f.Status != Unavailable || !strings.Contains(f.Reason.EN, "internal error") {
		t.Errorf("panic: %+v", f)
	}
	if f := Evaluate(rs[2:3], scoped{archErr: "no uname"}); f[0].Status != Unavailable || !strings.Contains(f[0].Reason.EN, "no uname") {
		t.Errorf("unknown arch: %+v", f)
	}
	if err := ValidateRules(rs); err == nil || !strings.Contains(err.Error(), "needs English and Chinese") || !strings.Contains(err.Error(), "no reference") {
		t.Errorf("validate: %v", err)
	}
}
