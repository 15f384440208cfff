package session

import (
	"strings"
	"testing"
)

// A side where nothing succeeded is refused by name; failed requests on a
// measured pair are a warning of the comparison.
func TestVersusCompare(t *testing.T) {
	w := func(side string, tps float64, reqs, errs int64) Window {
		return Window{Side: side, TPS: tps, P99: 5, Requests: reqs, Errors: errs}
	}
	var pairs [][2]Window
	for i := 0; i < 8; i++ {
		pairs = append(pairs, [2]Window{w("a", 100, 100, 0), w("b", 100, 100, 100)})
	}
	if _, err := VersusCompare(pairs, "http://a", "http://b", 1e9, 0); err == nil || !strings.Contains(err.Error(), "http://b: 0 succeeded of 800 requests") {
		t.Errorf("all of B failed: %v", err)
	}
	for i := range pairs {
		pairs[i][1] = w("b", 100+float64(i%2), 100, 1)
	}
	c, err := VersusCompare(pairs, "http://a", "http://b", 1e9, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || c.Warnings[0].EN != "8 of 1600 requests failed" {
		t.Errorf("warnings: %+v", c.Warnings)
	}
}
