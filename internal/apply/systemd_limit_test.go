package apply

import "testing"

// TestSystemdLimit: every form of "unlimited" units reads (ulimit's,
// prlimit's -1, systemd's own) is systemd's infinity, in either half.
func TestSystemdLimit(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"65536", "65536"},
		{"1024:4096", "1024:4096"},
		{"unlimited", "infinity"},
		{"-1", "infinity"},
		{"infinity", "infinity"},
		{" 65536:unlimited ", "65536:infinity"},
		{"-1:-1", "infinity:infinity"},
	} {
		if got := systemdLimit(c.in); got != c.want {
			t.Errorf("systemdLimit(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
