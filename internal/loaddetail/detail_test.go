package loaddetail

import (
	"encoding/json"
	"strings"
	"testing"
)

// small is a valid detail of 3 seconds, one label, one error.
func small() *Detail {
	return &Detail{Schema: Schema, Start: 1_764_061_200, Width: 1, Seconds: 3,
		Rows: []Row{
			{T: 0, Span: 0.5, N: 100, P50: 2, P90: 4, P99: 9, Max: 12, Codes: map[string]int64{"200": 100}},
			{T: 1, Span: 1},
			{T: 2, Span: 1, N: 200, Errors: 1, P50: 2, P90: 5, P99: 11, Max: 30, Kinds: map[string]int64{"timeout": 1}, Codes: map[string]int64{"200": 199}, Lagged: 3, LagMean: 0.4, LagMax: 1},
		},
		Labels:      []Label{{Label: "home", N: []int64{100, 0, 200}, P90: []float64{4, 0, 5}}},
		Percentiles: []Point{{0, 1}, {50, 2}, {99, 10}, {100, 30}}}
}

func encode(t *testing.T, d *Detail) []byte {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeRoundTrip(t *testing.T) {
	d, err := Decode(encode(t, small()))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 3 || d.Rows[2].Kinds["timeout"] != 1 || d.Labels[0].N[2] != 200 || d.Capped() {
		t.Errorf("decoded %+v", d)
	}
}

// A file from a run folder is untrusted: each way it can be wrong is an
// error naming what, not a page drawn from it.
func TestDecodeRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		edit func(*Detail)
		want string
	}{
		"schema":        {func(d *Detail) { d.Schema = "x" }, "schema"},
		"no rows":       {func(d *Detail) { d.Rows, d.Labels = nil, nil }, "rows"},
		"rows vs secs":  {func(d *Detail) { d.Seconds = 9 }, "for 9 seconds"},
		"order":         {func(d *Detail) { d.Rows[1].T = 5 }, "row 1"},
		"errors > n":    {func(d *Detail) { d.Rows[0].Errors = 101 }, "counts"},
		"negative":      {func(d *Detail) { d.Rows[0].P99 = -1 }, "value"},
		"span":          {func(d *Detail) { d.Rows[0].Span = 2 }, "span"},
		"misaligned":    {func(d *Detail) { d.Labels[0].N = d.Labels[0].N[:2] }, "not aligned"},
		"width":         {func(d *Detail) { d.Width = 0 }, "width"},
		"too many rows": {func(d *Detail) { d.Rows = make([]Row, MaxRows+1) }, "at most"},
		"key":           {func(d *Detail) { d.Rows[0].Codes[strings.Repeat("x", 100)] = 1 }, "count"},
		"percentile":    {func(d *Detail) { d.Percentiles[0].Pct = 101 }, "percentile"},
	} {
		d := small()
		c.edit(d)
		if _, err := Decode(encode(t, d)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
	for _, bad := range []string{"", "null", "[1,2]", `{"schema":"tuneloop.load-detail/v1","width":1e400}`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := Decode(make([]byte, MaxBytes+1)); err == nil || !strings.Contains(err.Error(), "larger") {
		t.Errorf("a huge file: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	b, _ := json.Marshal(small())
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Decode(b)
		if err == nil && (len(d.Rows) == 0 || len(d.Rows) > MaxRows) {
			t.Errorf("accepted %d rows", len(d.Rows))
		}
	})
}
