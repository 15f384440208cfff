package diagnose

import "testing"

// mib quotes what the hand-written num(kb/1024)+" MiB" quoted, through
// units.FormatMiB.
func TestMiB(t *testing.T) {
	for _, c := range []struct {
		kb   float64
		want string
	}{
		{0, "0.0 MiB"},
		{512, "0.5 MiB"},
		{1024, "1.0 MiB"},
		{101887, "99.5 MiB"},
		{102400, "100 MiB"},
		{24338056, "23768 MiB"},
	} {
		if got := mib(c.kb); got != c.want || got != num(c.kb/1024)+" MiB" {
			t.Errorf("mib(%v) = %q, want %q", c.kb, got, c.want)
		}
	}
}
