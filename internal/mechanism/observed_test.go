package mechanism

import (
	"strings"
	"testing"
)

// The JFR allocation total is quoted in binary units and says so (it
// printed bytes/2^20 as "MB" before).
func TestObservedAllocBytes(t *testing.T) {
	for _, c := range []struct {
		bytes  float64
		en, zh string
	}{
		{512 << 20, "(75% of 512 MiB sampled by JFR)", "占 JFR 采样的 512 MiB 中的 75%"},
		{1.5 * (1 << 30), "(75% of 1.5 GiB sampled by JFR)", "占 JFR 采样的 1.5 GiB 中的 75%"},
		{900, "(75% of 900 B sampled by JFR)", "占 JFR 采样的 900 B 中的 75%"},
	} {
		m := Match{HasCode: true, Code: Frame{Method: "a.B.c", Line: 7}, CodeShare: 0.75, AllocBytes: c.bytes}
		got := observed(&Entry{}, m)
		if !strings.Contains(got.EN, c.en) || !strings.Contains(got.ZH, c.zh) || !strings.Contains(got.EN, "a.B.c:7") {
			t.Errorf("%v: %q / %q", c.bytes, got.EN, got.ZH)
		}
	}
}
