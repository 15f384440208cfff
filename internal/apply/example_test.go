package apply_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// One trial of an experiment: set the knobs of one arm as a transaction,
// measure, then revert it, whatever happened in between.
func Example() {
	dir, _ := os.MkdirTemp("", "tuneloop-example")
	defer os.RemoveAll(dir)
	knob := filepath.Join(dir, "proc/sys/net/core/somaxconn")
	os.MkdirAll(filepath.Dir(knob), 0o755)
	os.WriteFile(knob, []byte("4096\n"), 0o644)
	show := func() { b, _ := os.ReadFile(knob); fmt.Printf("somaxconn %s", b) }

	j := &apply.Journal{Dir: filepath.Join(dir, "journal")}
	plan := apply.NewPlan(hostfs.Under(dir), []apply.Group{{
		Finding: "arm B",
		Changes: []finding.Change{{Kind: finding.ChangeSysctl, Key: "net.core.somaxconn", Value: "8192"}},
	}})
	res, err := apply.Apply(j, plan, apply.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("groups applied:", res.Applied())
	show()
	// ... start the service, load it, measure ...
	rr, err := apply.Revert(j, apply.RevertOptions{TxID: res.TxID})
	if err != nil || len(rr.Errs) > 0 {
		fmt.Println("revert:", err, rr.Errs)
		return
	}
	show()
	// Output:
	// groups applied: 1
	// somaxconn 8192
	// somaxconn 4096
}
