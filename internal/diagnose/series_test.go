package diagnose

import "testing"

// Shares derived from others stay inside [0, 100] (the schemas say so):
// 100 - 66.67 - 33.33 is negative in floating point.
func TestBusyNeverNegative(t *testing.T) {
	c := CPU{Idle: 200.0 / 3, Iowait: 100.0 / 3}
	if raw := 100 - c.Idle - c.Iowait; raw >= 0 {
		t.Skipf("this float64 arithmetic gives %v: nothing to clamp", raw)
	}
	if b := c.Busy(); b != 0 {
		t.Errorf("busy %v", b)
	}
}
