package apply

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Execute over a captured host: the dry run plans from an audit of the
// tree and writes nothing; --yes writes, reads back and journals.
func TestExecuteDryRunThenYes(t *testing.T) {
	host := filepath.Join(t.TempDir(), "host")
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "..", "testdata", "hosts", "build-vm-amd64"), host).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	knob := filepath.Join(host, "proc/sys/net/ipv4/tcp_max_syn_backlog")
	j := &Journal{Dir: filepath.Join(t.TempDir(), "journal")}
	roots := hostfs.Under(host)
	audit := func(context.Context) ([]finding.Finding, error) { // as check audits the tree
		return rules.Evaluate(rules.All(), sysinfo.Collect(roots, sysinfo.Options{Now: time.Now}), rules.JavaWeb), nil
	}
	req := Request{IDs: []string{"net.syn-backlog", "no.such-rule"}, Findings: audit, Roots: roots}
	doc, err := Execute(context.Background(), j, req)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.DryRun || doc.TxID != "" || len(doc.Groups) != 1 || doc.Groups[0].State != StatePlanned {
		t.Fatalf("dry run: %+v", doc)
	}
	if k := doc.Groups[0].Keys; len(k) != 1 || k[0].Key != "net.ipv4.tcp_max_syn_backlog" || strings.TrimSpace(k[0].Before) != "2048" || k[0].Want != "4096" {
		t.Errorf("planned keys: %+v", k)
	}
	if len(doc.Refused) != 1 || doc.Refused[0].Finding != "no.such-rule" {
		t.Errorf("refused: %+v", doc.Refused)
	}
	if b, _ := os.ReadFile(knob); strings.TrimSpace(string(b)) != "2048" {
		t.Errorf("the dry run wrote %q", b)
	}
	if _, err := os.Stat(j.Dir); err == nil {
		t.Error("the dry run created the journal")
	}
	req.Yes = true
	if doc, err = Execute(context.Background(), j, req); err != nil {
		t.Fatal(err)
	}
	if doc.TxID == "" || doc.Groups[0].State != OpVerified || doc.Undone() {
		t.Fatalf("--yes: %+v", doc)
	}
	if k := doc.Groups[0].Keys[0]; strings.TrimSpace(k.After) != "4096" {
		t.Errorf("read back %q", k.After)
	}
	if b, _ := os.ReadFile(knob); strings.TrimSpace(string(b)) != "4096" {
		t.Errorf("knob = %q after --yes", b)
	}
}
