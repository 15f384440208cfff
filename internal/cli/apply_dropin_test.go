package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
)

// A finding whose fix is a systemd drop-in: the dry run shows its lines
// and the next step, --yes writes it under the root, revert removes it;
// tuneloop itself reloads and restarts nothing.
func TestApplyRevertDropin(t *testing.T) {
	host, run, journal := applyHost(t), t.TempDir(), t.TempDir()
	c, err := apply.Dropin("shop", "limits", "", []string{"LimitNOFILE=65536"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal([]finding.Finding{{ID: "jvm.fd-limit", Status: finding.Fail, Fix: finding.Fix{Apply: "LimitNOFILE=65536", Changes: []finding.Change{c}}}})
	if err := os.WriteFile(filepath.Join(run, "check.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(host, "etc/systemd/system/shop.service.d/50-tuneloop-limits.conf")
	for _, yes := range []bool{false, true} {
		env, out, _ := testEnv()
		if err := RunApply(context.Background(), env, &ApplyOptions{From: run, IDs: []string{"jvm.fd-limit"}, Root: host, Journal: journal, Output: "text", Yes: yes}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"/etc/systemd/system/shop.service.d/50-tuneloop-limits.conf:", "+ LimitNOFILE=65536",
			"next: systemctl daemon-reload && systemctl restart shop.service"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("apply (yes=%v) output lacks %q:\n%s", yes, want, out)
			}
		}
		_, err := os.Stat(file)
		if yes != (err == nil) {
			t.Errorf("yes=%v: drop-in on disk: %v", yes, err)
		}
	}
	env, out, _ := testEnv()
	if err := RunRevert(context.Background(), env, &RevertOptions{All: true, Journal: journal}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"50-tuneloop-limits.conf  removed (it was not there before)", "systemctl daemon-reload && systemctl restart shop.service"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("revert output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("revert left the drop-in: %v", err)
	}
	env, out, _ = testEnv()
	if err := RunRevert(context.Background(), env, &RevertOptions{All: true, Journal: journal}); err != nil || !strings.Contains(out.String(), "nothing to revert") {
		t.Errorf("second revert: %v\n%s", err, out)
	}
}
