package gclog

import "testing"

// TestParseSizeKBForms covers every size form the scanner took before it
// read the unit letter through units.Shift (upper-case K/M/G/T, B, a "B"
// tail, one space before K/M/G for CMS), and what Shift adds: lower case,
// and the space before T.
func TestParseSizeKBForms(t *testing.T) {
	for _, c := range []struct {
		in string
		kb int64
		n  int
		ok bool
	}{
		{"1534K", 1534, 5, true},
		{"15.0M", 15360, 5, true},
		{"0.0B", 0, 4, true},
		{"2048B", 2, 5, true},
		{"2G", 2 << 20, 2, true},
		{"1T", 1 << 30, 2, true},
		{"830688 K", 830688, 8, true}, // CMS "YG occupancy: 830688 K"
		{"1 M", 1024, 3, true},
		{"1 G", 1 << 20, 3, true},
		{"12KB", 12, 4, true},
		{"12MB)", 12288, 4, true},
		{"71.1M(96.0M)", 72806, 5, true},
		{"0.5K", 1, 4, true}, // rounded to the nearest KB
		// taken through Shift's table, refused before
		{"2g", 2 << 20, 2, true},
		{"512m", 512 << 10, 4, true},
		{"1 T", 1 << 30, 3, true},
		// refused
		{"", 0, 0, false},
		{"K", 0, 0, false},
		{"12", 0, 0, false},
		{"12 ", 0, 0, false},
		{"12 B", 0, 0, false},
		{"12X", 0, 0, false},
		{"12b", 0, 0, false},
		{"12  K", 0, 0, false},
	} {
		kb, n, ok := parseSizeKB([]byte(c.in))
		if kb != c.kb || n != c.n || ok != c.ok {
			t.Errorf("parseSizeKB(%q) = %d, %d, %v; want %d, %d, %v", c.in, kb, n, ok, c.kb, c.n, c.ok)
		}
	}
}
