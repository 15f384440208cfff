package apply

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// A drop-in for a unit that has none: written through the journal, read
// back, reverted by removing it; one that existed: its old content back.
func TestDropinWrittenAndReverted(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	c, err := Dropin("shop", "jvm", "", []string{"Environment=JAVA_TOOL_OPTIONS=-Xmx2g", "LimitNOFILE=65536", "CPUAffinity=0-3"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Key != "/etc/systemd/system/shop.service.d/50-tuneloop-jvm.conf" {
		t.Fatalf("key %q", c.Key)
	}
	file := filepath.Join(dir, "etc/systemd/system/shop.service.d/50-tuneloop-jvm.conf")
	j := &Journal{Dir: t.TempDir()}
	p := NewPlan(roots, []Group{{Finding: "jvm.limits/shop", Changes: []finding.Change{c}}})
	if g := p.Groups[0]; g.Err != nil || len(g.Steps) != 1 || !g.Steps[0].BeforeAbsent {
		t.Fatalf("plan %+v", g)
	}
	res, err := Apply(j, p, Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply: %v %+v", err, res)
	}
	got := read(t, file)
	for _, want := range []string{"[Service]\n", "Environment=JAVA_TOOL_OPTIONS=-Xmx2g\n", "LimitNOFILE=65536\n", "CPUAffinity=0-3\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("drop-in lacks %q:\n%s", want, got)
		}
	}
	next := NextSteps([]string{c.Key, "net.core.somaxconn", c.Key})
	if len(next) != 1 || !strings.Contains(next[0].EN, "systemctl daemon-reload && systemctl restart shop.service") ||
		!strings.Contains(next[0].ZH, "systemctl restart shop.service") {
		t.Errorf("next steps %+v", next)
	}
	// Applying it again changes nothing.
	if g := NewPlan(roots, []Group{{Finding: "again", Changes: []finding.Change{c}}}).Groups[0]; len(g.Steps) != 0 || len(g.Same) != 1 {
		t.Errorf("second plan %+v", g)
	}
	rr, err := Revert(j, RevertOptions{All: true})
	if err != nil || len(rr.Errs) > 0 || len(rr.Reverted) != 1 {
		t.Fatalf("revert: %v %+v", err, rr)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("revert left the drop-in: %v", err)
	}
	if rr, err := Revert(j, RevertOptions{All: true}); err != nil || len(rr.Reverted)+len(rr.Errs) > 0 {
		t.Errorf("second revert not a no-op: %v %+v", err, rr)
	}

	// An older drop-in of the same name (a previous tuneloop, or by hand).
	old := "[Service]\nLimitNOFILE=4096\n"
	if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Apply(j, NewPlan(roots, []Group{{Finding: "jvm.limits/shop", Changes: []finding.Change{c}}}), Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply over an old drop-in: %v %+v", err, res)
	}
	if rr, err := Revert(j, RevertOptions{TxID: res.TxID}); err != nil || len(rr.Errs) > 0 {
		t.Fatalf("revert: %v %+v", err, rr)
	}
	if got := read(t, file); got != old {
		t.Errorf("revert wrote %q, want the old content %q", got, old)
	}
}

// Someone edits tuneloop's drop-in after the apply (even by one blank
// line): revert names it and refuses, --force restores.
func TestDropinDriftByContent(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	c, err := Dropin("shop.service", "limits", "Service", []string{"LimitNOFILE=65536"})
	if err != nil {
		t.Fatal(err)
	}
	j := &Journal{Dir: t.TempDir()}
	res, err := Apply(j, NewPlan(roots, []Group{{Finding: "limits", Changes: []finding.Change{c}}}), Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply: %v %+v", err, res)
	}
	file := filepath.Join(dir, "etc/systemd/system/shop.service.d/50-tuneloop-limits.conf")
	if err := os.WriteFile(file, []byte(c.Value+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rr, err := Revert(j, RevertOptions{All: true})
	var de *DriftError
	if err != nil || len(rr.Errs) != 1 || !errors.As(rr.Errs[0], &de) || !strings.Contains(de.Error(), "50-tuneloop-limits.conf") {
		t.Fatalf("revert after an edit: %v %+v", err, rr)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("a drifted drop-in was removed: %v", err)
	}
	if rr, err := Revert(j, RevertOptions{All: true, Force: true}); err != nil || len(rr.Errs) > 0 {
		t.Fatalf("forced revert: %v %+v", err, rr)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("forced revert left the drop-in: %v", err)
	}
}

// Only tuneloop's own drop-in path and plain directives are accepted.
func TestDropinRefusesOtherPaths(t *testing.T) {
	_, roots := fakeHost(t, "build-vm-amd64")
	for _, key := range []string{"/etc/systemd/system/shop.service", "/etc/systemd/system/shop.service.d/override.conf",
		"/etc/systemd/system/../sudoers.d/50-tuneloop-x.conf", "/lib/systemd/system/shop.service.d/50-tuneloop-x.conf"} {
		p := NewPlan(roots, []Group{{Finding: "x", Changes: []finding.Change{{Kind: KindDropin, Key: key, Value: "[Service]\n"}}}})
		if p.Groups[0].Err == nil {
			t.Errorf("%s accepted", key)
		}
	}
	if _, err := Dropin("shop", "x", "", []string{"LimitNOFILE=1\nExecStartPre=/bin/rm"}); err == nil {
		t.Error("a directive with a line break accepted")
	}
	if _, err := Dropin("shop", "../x", "", nil); err == nil {
		t.Error("a name with a slash accepted")
	}
}
