package sysinfo

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// scripts/capture-host.sh copies the sysctls sysinfo reads; a key added to
// SysctlKeys but not to the script would be "unavailable" on every host a
// user captured for us.
func TestCaptureScriptHasEverySysctl(t *testing.T) {
	b, err := os.ReadFile("../../scripts/capture-host.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\nSYSCTLS="([^"]*)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal(`scripts/capture-host.sh: no SYSCTLS="..." list`)
	}
	script := strings.Fields(string(m[1]))
	want := slices.Clone(SysctlKeys)
	slices.Sort(script)
	slices.Sort(want)
	if !slices.Equal(script, want) {
		t.Fatalf("scripts/capture-host.sh SYSCTLS and sysinfo.SysctlKeys differ:\nscript: %v\nkeys:   %v", script, want)
	}
}
