package cli

import (
	"slices"
	"testing"
)

// --sizes took 1, 64, 1k, 64k, 1m (any case, spaces around); it now reads
// each as units.ParseBytes does, so 64KiB and 0x400 too, still within
// 1 byte .. probe.MaxMsg.
func TestParseSizes(t *testing.T) {
	got, err := parseSizes("1,64,1k, 64K ,1m")
	if err != nil || !slices.Equal(got, []int{1, 64, 1 << 10, 64 << 10, 1 << 20}) {
		t.Errorf("parseSizes = %v, %v", got, err)
	}
	if got, err := parseSizes("64KiB,0x400"); err != nil || !slices.Equal(got, []int{64 << 10, 1024}) {
		t.Errorf("parseSizes(64KiB,0x400) = %v, %v", got, err)
	}
	for _, bad := range []string{"0", "2m", "", "1,,2", "-1", "1.5k", "x"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q): want an error", bad)
		}
	}
}
