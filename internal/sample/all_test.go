package sample

import (
	"slices"
	"testing"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// The sampler list is explicit: every name once, sorted (the order samplers
// run and are reported in), tcpstates off by default, and a change made by
// one caller to its copy is not seen by the next.
func TestAllIsTheExplicitList(t *testing.T) {
	all := All()
	var got []string
	for _, s := range all {
		if s.New == nil {
			t.Errorf("%s: no factory", s.Name)
		}
		got = append(got, s.Name)
	}
	want := []string{"cpu", "diskstats", "interrupts", "loadavg", "meminfo", "netdev", "numa", "process", "psi",
		"softirqs", "tcp", "tcpstates", "threads", "vmstat"}
	if !slices.Equal(got, want) {
		t.Fatalf("All() = %v, want %v", got, want)
	}
	av := Available()
	if len(av) != len(want) || av["tcpstates"] || !av["cpu"] {
		t.Errorf("Available() = %v: want all %d, tcpstates off, cpu on", av, len(want))
	}
	all[0].Default = false
	if !All()[0].Default {
		t.Error("All() returned shared state: a caller's change leaked")
	}
}

func TestNewRunsTheDefaultsAndRejectsUnknownNames(t *testing.T) {
	h := hostfs.Live()
	c, err := New(h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// No target: the process samplers do not apply and are not listed.
	want := []string{"cpu", "diskstats", "interrupts", "loadavg", "meminfo", "netdev", "numa", "psi", "softirqs", "tcp", "vmstat"}
	if got := c.Samplers(); !slices.Equal(got, want) {
		t.Errorf("Samplers() = %v, want %v", got, want)
	}
	c, err = New(h, Options{Disable: []string{"cpu"}, Enable: []string{"tcpstates"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Samplers(); slices.Contains(got, "cpu") || !slices.Contains(got, "tcpstates") {
		t.Errorf("Disable cpu, Enable tcpstates: Samplers() = %v", got)
	}
	if _, err := New(h, Options{Enable: []string{"cpus"}}); err == nil {
		t.Error("New accepted an unknown sampler name")
	}
}
