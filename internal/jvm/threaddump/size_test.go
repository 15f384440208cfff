package threaddump

import "testing"

// TestParseBytesForms covers every allocated= form the header reader took
// before it read the unit letter through units.Shift (B, K, M, G upper
// case, bare digits), what Shift adds (T, lower case), and the overflow
// the old copy wrapped (atoi64 saturated at 1<<62, then the multiply
// wrapped: "99999999999999999999G" read as 0).
func TestParseBytesForms(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"975K", 975 << 10},
		{"64B", 64},
		{"12M", 12 << 20},
		{"3G", 3 << 30},
		{"100", 100},
		{"0B", 0},
		{"2T", 2 << 40},
		{"3g", 3 << 30},
		{"975k", 975 << 10},
		{"8388607T", 8388607 << 40},
		{"8388608T", -1},
		{"99999999999999999999G", -1},
		{"", -1},
		{"K", -1},
		{"B", -1},
		{"12KB", -1},
		{"1.5M", -1},
		{"-1K", -1},
		{"12X", -1},
	} {
		if got := parseBytes([]byte(c.in)); got != c.want {
			t.Errorf("parseBytes(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"975K", "64B", "3G", "2T", "99999999999999999999G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v := parseBytes([]byte(s)); v < -1 {
			t.Fatalf("parseBytes(%q) = %d", s, v)
		}
	})
}
